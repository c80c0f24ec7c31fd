; Swift (tree-sitter-swift 0.4, as built into tree-sitter-wasms 0.1.13; WebAssembly).
;
; One node type, class_declaration, holds classes, structs, enums and extensions; its
; declaration_kind field tells them apart. An extension names an existing type: a reference, not
; a definition. Ordering matters (extract.ts keeps the first tag per name node): methods before
; functions, constants before fields.

; ---------------------------------------------------------------------------------------------
; Definitions
; ---------------------------------------------------------------------------------------------

(class_declaration declaration_kind: "class" name: (type_identifier) @name.definition.class)
(class_declaration declaration_kind: "struct" name: (type_identifier) @name.definition.class)
(class_declaration declaration_kind: "enum" name: (type_identifier) @name.definition.enum)
(class_declaration declaration_kind: "actor" name: (type_identifier) @name.definition.class)
(protocol_declaration name: (type_identifier) @name.definition.interface)
(typealias_declaration name: (type_identifier) @name.definition.type)

; Functions in a type's body (or a protocol's) are methods; others are functions.
(class_body (function_declaration name: (simple_identifier) @name.definition.method))
(protocol_body (protocol_function_declaration name: (simple_identifier) @name.definition.method))
(function_declaration name: (simple_identifier) @name.definition.function)

; Top-level let/var are constants; properties of types and protocols are fields; enum cases are constants.
(source_file (property_declaration name: (pattern bound_identifier: (simple_identifier) @name.definition.constant)))
(class_body (property_declaration name: (pattern bound_identifier: (simple_identifier) @name.definition.field)))
(protocol_body (protocol_property_declaration name: (pattern bound_identifier: (simple_identifier) @name.definition.field)))
(enum_entry name: (simple_identifier) @name.definition.constant)

; ---------------------------------------------------------------------------------------------
; References
; ---------------------------------------------------------------------------------------------

(import_declaration (identifier (simple_identifier) @name.reference.import .))

; extension Inventory { ... } and supertypes: class A: Base, Proto.
(class_declaration declaration_kind: "extension" name: (user_type (type_identifier) @name.reference.inheritance))
(inheritance_specifier inherits_from: (user_type (type_identifier) @name.reference.inheritance))

; Construction: Foo(...) (by the capital letter); calls: f(...), obj.f(...), f { ... }. A
; subscript (items[key]) is a call_expression too, told apart by its bracket.
((call_expression . (simple_identifier) @name.reference.new . (call_suffix (value_arguments . "(")))
 (#match? @name.reference.new "^[A-Z]")
 (#not-any-of? @name.reference.new "Array" "Dictionary" "Set" "String" "Int" "Double" "Bool"))
((call_expression . (simple_identifier) @name.reference.call . (call_suffix [(value_arguments . "(") (lambda_literal)]))
 (#match? @name.reference.call "^[a-z_]")
 (#not-any-of? @name.reference.call "print" "min" "max" "abs" "zip" "stride" "fatalError" "precondition" "assert"))
(call_expression
  . (navigation_expression suffix: (navigation_suffix suffix: (simple_identifier) @name.reference.call))
  . (call_suffix [(value_arguments . "(") (lambda_literal)]))

; Type uses, builtin types left out.
((user_type (type_identifier) @name.reference.type)
 (#not-any-of? @name.reference.type
   "Int" "Int32" "Int64" "UInt" "Double" "Float" "Bool" "String" "Character" "Void" "Any"
   "AnyObject" "Self" "Array" "Dictionary" "Set" "Optional" "Error" "Never"))

; ---------------------------------------------------------------------------------------------
; Scopes
; ---------------------------------------------------------------------------------------------

(class_declaration) @scope
(protocol_declaration) @scope
(function_declaration) @scope
(init_declaration) @scope

; ---------------------------------------------------------------------------------------------
; Modules (FileNames.modules)
; ---------------------------------------------------------------------------------------------

(import_declaration (identifier) @module.import)
