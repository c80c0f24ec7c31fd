; Scala 2 and 3 (tree-sitter-scala 0.24).
;
; Ordering matters: extract.ts keeps the first tag per name node, and tree-sitter returns the
; captures of one node in pattern order. So a more specific pattern (method, constant,
; inheritance, new) comes before a general one (function, field, type, call) matching the same
; node.
;
; Not captured: the package clause (every file of a package would define it). A case class is
; built like a function call, Order(...): a call of a capitalized name counts as `new`.

; ---------------------------------------------------------------------------------------------
; Definitions
; ---------------------------------------------------------------------------------------------

(class_definition name: (identifier) @name.definition.class)
(object_definition name: (identifier) @name.definition.class)
(trait_definition name: (identifier) @name.definition.trait)
(enum_definition name: (identifier) @name.definition.enum)
(type_definition name: (type_identifier) @name.definition.type)

(simple_enum_case name: (identifier) @name.definition.constant)
(full_enum_case name: (identifier) @name.definition.constant)

; def in a class, object, trait or enum body is a method; at the top or in a block a function.
(template_body
  [
    (function_definition name: (identifier) @name.definition.method)
    (function_declaration name: (identifier) @name.definition.method)
  ])
(enum_body
  [
    (function_definition name: (identifier) @name.definition.method)
    (function_declaration name: (identifier) @name.definition.method)
  ])
(function_definition name: (identifier) @name.definition.function)
(function_declaration name: (identifier) @name.definition.function)

; Values: in an object or at the top they are constants; in a class or trait, fields.
(object_definition
  body: (template_body
    [
      (val_definition pattern: (identifier) @name.definition.constant)
      (var_definition pattern: (identifier) @name.definition.constant)
    ]))
(compilation_unit
  [
    (val_definition pattern: (identifier) @name.definition.constant)
    (var_definition pattern: (identifier) @name.definition.constant)
    (given_definition name: (identifier) @name.definition.constant)
  ])
(template_body
  [
    (val_definition pattern: (identifier) @name.definition.field)
    (var_definition pattern: (identifier) @name.definition.field)
    (val_declaration name: (identifier) @name.definition.field)
    (var_declaration name: (identifier) @name.definition.field)
  ])

; ---------------------------------------------------------------------------------------------
; References
; ---------------------------------------------------------------------------------------------

; import a.b.C; import a.b.{C, D => E} (C and D, the names as declared); not import a.b._.
(import_declaration (identifier) @name.reference.import .)
(import_declaration
  (namespace_selectors
    [
      (identifier) @name.reference.import
      (arrow_renamed_identifier name: (identifier) @name.reference.import)
    ]))

; Annotations: @tailrec, @SerialVersionUID(1L).
(annotation
  name: [
    (type_identifier) @name.reference.decorator
    (stable_type_identifier (type_identifier) @name.reference.decorator .)
  ])

; Supertypes: extends A(args) with B[T] with c.D. (Without the `type:` field in the pattern: it
; would match the first supertype only.)
(extends_clause
  [
    (type_identifier) @name.reference.inheritance
    (stable_type_identifier (type_identifier) @name.reference.inheritance .)
    (generic_type
      type: [
        (type_identifier) @name.reference.inheritance
        (stable_type_identifier (type_identifier) @name.reference.inheritance .)
      ])
  ])

; Construction: new Foo(...), new a.Foo[T], and Foo(...) (by the capital letter).
(instance_expression
  [
    (type_identifier) @name.reference.new
    (stable_type_identifier (type_identifier) @name.reference.new .)
    (generic_type
      type: [
        (type_identifier) @name.reference.new
        (stable_type_identifier (type_identifier) @name.reference.new .)
      ])
  ])
((call_expression function: (identifier) @name.reference.new)
 (#match? @name.reference.new "^[A-Z]"))

; Calls: f(x), obj.f(x), f[T](x), obj.f { ... }. Calls without parentheses (obj.f) cannot be told
; from field access and are not captured. Predef's everyday functions are left out.
((call_expression
  function: [
    (identifier) @name.reference.call
    (field_expression field: (identifier) @name.reference.call)
    (generic_function
      function: [
        (identifier) @name.reference.call
        (field_expression field: (identifier) @name.reference.call)
      ])
  ])
 (#not-any-of? @name.reference.call "println" "print" "require" "assert" "apply"))

; Type uses: the types of parameters, values and results, type arguments, aliases' right sides,
; and the parts of compound, function and tuple types. A qualified type (a.b.C) counts by its
; last name. Builtin types are left out.
(([
  (_
    [
      type: (type_identifier) @name.reference.type
      return_type: (type_identifier) @name.reference.type
      type: (stable_type_identifier (type_identifier) @name.reference.type .)
      return_type: (stable_type_identifier (type_identifier) @name.reference.type .)
    ])
  (generic_type
    type: [
      (type_identifier) @name.reference.type
      (stable_type_identifier (type_identifier) @name.reference.type .)
    ])
  (type_arguments (type_identifier) @name.reference.type)
  (type_arguments (stable_type_identifier (type_identifier) @name.reference.type .))
  (compound_type [base: (type_identifier) extra: (type_identifier)] @name.reference.type)
  (parameter_types (type_identifier) @name.reference.type)
  (tuple_type (type_identifier) @name.reference.type)
  (infix_type [left: (type_identifier) right: (type_identifier)] @name.reference.type)
 ])
 (#not-any-of? @name.reference.type
   "Int" "Long" "Short" "Byte" "Double" "Float" "Boolean" "Char" "String" "Unit" "Any" "AnyRef"
   "AnyVal" "Nothing" "Null"))

; ---------------------------------------------------------------------------------------------
; Scopes
; ---------------------------------------------------------------------------------------------

; An annotated definition starts at its first annotation (often on a line of its own); then the
; body's first line (the `class X ... {` line) is the header instead.
(class_definition . [(modifiers) (access_modifier) (identifier)]) @scope
(class_definition . (annotation) body: (_) @scope)
(object_definition . [(modifiers) (identifier)]) @scope
(object_definition . (annotation) body: (_) @scope)
(trait_definition . [(modifiers) (access_modifier) (identifier)]) @scope
(trait_definition . (annotation) body: (_) @scope)
(enum_definition . [(access_modifier) (identifier)]) @scope
(enum_definition . (annotation) body: (_) @scope)
(function_definition . [(modifiers) (identifier)]) @scope
(function_definition . (annotation) body: (_) @scope)

; ---------------------------------------------------------------------------------------------
; Modules (FileNames.modules)
; ---------------------------------------------------------------------------------------------

; import a.b.C; import a.b._; import a.b.{C, D => E}: the path has no node of its own, so the
; whole statement is captured (module.statement drops its `import` keyword).
(import_declaration) @module.statement
