; Dart (tree-sitter-dart, as built into tree-sitter-wasms 0.1.13; WebAssembly).
;
; A method is a method_signature (its body a sibling function_body); a top-level function is a
; function_signature of the program. A call is a name followed by a selector holding its
; argument_part: f(x) is (identifier) (selector (argument_part)), a.f(x) puts f in an
; unconditional_assignable_selector before that selector. Ordering matters: extract.ts keeps the
; first tag per node.

; ---------------------------------------------------------------------------------------------
; Definitions
; ---------------------------------------------------------------------------------------------

(class_definition name: (identifier) @name.definition.class)
(mixin_declaration (identifier) @name.definition.class)
(extension_declaration name: (identifier) @name.definition.class)
(enum_declaration name: (identifier) @name.definition.enum)
(enum_constant name: (identifier) @name.definition.constant)
(type_alias . (type_identifier) @name.definition.type)

(class_body (method_signature (function_signature name: (identifier) @name.definition.method)))
(class_body (method_signature (getter_signature name: (identifier) @name.definition.method)))
(class_body (method_signature (setter_signature name: (identifier) @name.definition.method)))
(class_body (declaration (function_signature name: (identifier) @name.definition.method)))
(program (function_signature name: (identifier) @name.definition.function))

(class_body (declaration (initialized_identifier_list (initialized_identifier . (identifier) @name.definition.field))))
(class_body (declaration (static_final_declaration_list (static_final_declaration . (identifier) @name.definition.constant))))
(program (static_final_declaration_list (static_final_declaration . (identifier) @name.definition.constant)))

; ---------------------------------------------------------------------------------------------
; References
; ---------------------------------------------------------------------------------------------

; import '...' show A, B: the names shown.
(import_specification (combinator (identifier) @name.reference.import))
(annotation name: (identifier) @name.reference.decorator)
(superclass (type_identifier) @name.reference.inheritance)
(mixins (type_identifier) @name.reference.inheritance)
(interfaces (type_identifier) @name.reference.inheritance)

; Construction: Foo(...) (by the capital letter), new Foo(...); calls: f(...), a.f(...), ..f(...).
(new_expression (type_identifier) @name.reference.new)
(((identifier) @name.reference.new . (selector (argument_part)))
 (#match? @name.reference.new "^[A-Z]"))
(((identifier) @name.reference.call . (selector (argument_part)))
 (#not-any-of? @name.reference.call "print" "identical" "min" "max"))
((selector (unconditional_assignable_selector (identifier) @name.reference.call)) . (selector (argument_part)))
((selector (conditional_assignable_selector (identifier) @name.reference.call)) . (selector (argument_part)))
(cascade_section (cascade_selector (identifier) @name.reference.call) . (argument_part))

; Types where they are used (a type alias's own name is a type_identifier too), builtins left out.
(([
  (formal_parameter (type_identifier) @name.reference.type)
  (function_signature . (type_identifier) @name.reference.type)
  (declaration . (type_identifier) @name.reference.type)
  (type_arguments (type_identifier) @name.reference.type)
  (typed_identifier (type_identifier) @name.reference.type)
  (function_type (type_identifier) @name.reference.type)
  (local_variable_declaration (initialized_variable_definition . (type_identifier) @name.reference.type))
 ])
 (#not-any-of? @name.reference.type
   "int" "double" "num" "bool" "String" "void" "dynamic" "Object" "List" "Map" "Set" "Iterable"
   "Future" "Stream" "Function" "Never" "Null"))

; ---------------------------------------------------------------------------------------------
; Scopes
; ---------------------------------------------------------------------------------------------

(class_definition) @scope
(mixin_declaration) @scope
(extension_declaration) @scope
(enum_declaration) @scope

; ---------------------------------------------------------------------------------------------
; Modules (FileNames.modules)
; ---------------------------------------------------------------------------------------------

; dart:x and package:x/y.dart as written; a plain path is relative to the importing file.
((import_specification (configurable_uri (uri (string_literal) @module.import)))
 (#match? @module.import "^.(dart|package):"))
((import_specification (configurable_uri (uri (string_literal) @module.relative)))
 (#not-match? @module.relative "^.(dart|package):"))
