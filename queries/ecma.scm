; Shared by JavaScript, TypeScript and TSX. Every pattern here must compile against the
; tree-sitter-javascript 0.25 grammar and the JS grammar embedded in tree-sitter-typescript 0.23,
; so only node types and fields common to both appear; the rest lives in javascript.scm and
; typescript.scm.
;
; Ordering matters: extract.ts keeps the first tag per name node, and tree-sitter returns the
; captures of one node in pattern order. So a more specific pattern (decorator, inheritance)
; comes before a general one (call, type) that would capture the same node.

; ---------------------------------------------------------------------------------------------
; Definitions
; ---------------------------------------------------------------------------------------------

; class Foo {} (JS names it identifier, TS type_identifier).
(class_declaration name: (_) @name.definition.class)
; Named class expression: const A = class Impl {}.
(class name: (_) @name.definition.class)
; Anonymous class expression bound to a name: const Store = class { ... }.
(variable_declarator
  name: (identifier) @name.definition.class
  value: (class !name))

(function_declaration name: (identifier) @name.definition.function)
(generator_function_declaration name: (identifier) @name.definition.function)

; Methods of classes and object literals; computed names ([Symbol.iterator]) have no usable name.
(method_definition
  name: [(property_identifier) (private_property_identifier)] @name.definition.method)

; A function value bound to a variable (const/let/var, at any depth).
(variable_declarator
  name: (identifier) @name.definition.function
  value: [(arrow_function) (function_expression) (generator_function)])

; Object literal members holding functions: { onClick: () => ..., load: function () {} }.
(pair
  key: (property_identifier) @name.definition.method
  value: [(arrow_function) (function_expression) (generator_function)])

; Function assigned to a property: exports.handler = ..., Foo.prototype.bar = function () {}.
(assignment_expression
  left: (member_expression property: (property_identifier) @name.definition.function)
  right: [(arrow_function) (function_expression) (generator_function)])

; Module-level constants: top-level `const` (exported or not) whose value is data, not a function
; or class (those are captured above) and not a require() (that is an import).
(program
  [
    (lexical_declaration
      kind: "const"
      (variable_declarator
        name: (identifier) @name.definition.constant
        value: [
          (number) (string) (template_string) (regex) (true) (false) (null) (undefined)
          (object) (array) (identifier) (member_expression) (subscript_expression)
          (call_expression) (new_expression) (await_expression) (binary_expression)
          (unary_expression) (ternary_expression) (parenthesized_expression)
        ] @_value))
    (export_statement
      declaration: (lexical_declaration
        kind: "const"
        (variable_declarator
          name: (identifier) @name.definition.constant
          value: [
            (number) (string) (template_string) (regex) (true) (false) (null) (undefined)
            (object) (array) (identifier) (member_expression) (subscript_expression)
            (call_expression) (new_expression) (await_expression) (binary_expression)
            (unary_expression) (ternary_expression) (parenthesized_expression)
          ] @_value)))
  ]
  (#not-match? @_value "^require\\s*\\("))

; ---------------------------------------------------------------------------------------------
; References
; ---------------------------------------------------------------------------------------------

; Decorators (before calls: @Component({...}) is also a call expression).
(decorator (identifier) @name.reference.decorator)
(decorator (member_expression property: (property_identifier) @name.reference.decorator))
(decorator (call_expression function: (identifier) @name.reference.decorator))
(decorator
  (call_expression
    function: (member_expression property: (property_identifier) @name.reference.decorator)))

; Imports: the names as the other module exports them (b in `b as c`), default imports, and
; names re-exported from another module (export { a } from './a').
(import_specifier name: (identifier) @name.reference.import)
(import_clause (identifier) @name.reference.import)
(export_statement
  (export_clause (export_specifier name: (identifier) @name.reference.import))
  source: (string))
; CommonJS: const { a, b: c } = require('m').
(variable_declarator
  name: (object_pattern
    [
      (shorthand_property_identifier_pattern) @name.reference.import
      (pair_pattern key: (property_identifier) @name.reference.import)
    ])
  value: (call_expression function: (identifier) @_require)
  (#eq? @_require "require"))

; Constructor calls: new Foo(), new ns.Foo().
(new_expression constructor: (identifier) @name.reference.new)
(new_expression constructor: (member_expression property: (property_identifier) @name.reference.new))

; Calls: foo(), a.b.foo(), a?.foo(), this.#foo().
(call_expression function: (identifier) @name.reference.call)
(call_expression
  function: (member_expression
    property: [(property_identifier) (private_property_identifier)] @name.reference.call))

; ---------------------------------------------------------------------------------------------
; Scopes: nodes whose first line is a header line shown above nested definitions
; ---------------------------------------------------------------------------------------------

; A decorated declaration starts at its first decorator; then the body's first line (the
; `class X {` line in the usual brace style) is the header instead.
(class_declaration !decorator) @scope
(class_declaration decorator: (_) body: (class_body) @scope)
(class) @scope
(function_declaration) @scope
(generator_function_declaration) @scope
; Decorated JS methods start at their decorator: javascript.scm uses the body line for them (TS
; keeps method decorators outside the method node).
(method_definition !decorator) @scope
; const handler = (...) => { ... }: the declarator's line is the `const handler = ...` line.
(variable_declarator value: [(arrow_function) (function_expression) (generator_function)]) @scope
(pair value: [(arrow_function) (function_expression) (generator_function)]) @scope

; ---------------------------------------------------------------------------------------------
; Modules: the specifiers a file imports (FileNames.modules), as the string's content
; ---------------------------------------------------------------------------------------------

; import ... from 'm'; import 'm'; export ... from 'm'.
(import_statement source: (string (string_fragment) @module.import))
(export_statement source: (string (string_fragment) @module.import))
; require('m') and import('m'), with a literal argument only (a computed one names no file).
((call_expression
  function: (identifier) @_require
  arguments: (arguments . (string (string_fragment) @module.import) .))
 (#eq? @_require "require"))
(call_expression
  function: (import)
  arguments: (arguments . (string (string_fragment) @module.import)))
