; Objective-C (tree-sitter-objc 3.0), followed by c.scm: the grammar extends C's, so C's
; functions, types, macros, calls and #include "..." modules are captured as in C (family 'c':
; an Objective-C file and the C headers it includes share names).
;
; Ordering matters: extract.ts keeps the first tag per node, and these patterns come before C's.
; A method is named by the first keyword of its selector (-cheapestWithLimit:).

; ---------------------------------------------------------------------------------------------
; Definitions
; ---------------------------------------------------------------------------------------------

(class_interface . (identifier) @name.definition.class)
(class_implementation . (identifier) @name.definition.class)
(protocol_declaration . (identifier) @name.definition.interface)

(method_declaration (method_type) . (identifier) @name.definition.method)
(method_declaration . (identifier) @name.definition.method)
(method_definition (method_type) . (identifier) @name.definition.method)
(method_definition . (identifier) @name.definition.method)

(property_declaration (struct_declaration (struct_declarator (pointer_declarator declarator: (identifier) @name.definition.field))))
(property_declaration (struct_declaration (struct_declarator (identifier) @name.definition.field)))

; ---------------------------------------------------------------------------------------------
; References
; ---------------------------------------------------------------------------------------------

(class_interface superclass: (identifier) @name.reference.inheritance)
(class_interface (parameterized_arguments (type_name (type_identifier) @name.reference.inheritance)))
(protocol_declaration (protocol_reference_list (identifier) @name.reference.inheritance))

; Types of a method's result and parameters: - (Item *)findItem:(NSString *)sku.
(method_type (type_name (type_identifier) @name.reference.type))

; [Foo alloc] and [Foo new] construct; any other message is a call of its first keyword.
((message_expression receiver: (identifier) @name.reference.new method: (identifier) @_method)
 (#any-of? @_method "alloc" "new")
 (#match? @name.reference.new "^[A-Z]"))
((message_expression method: (identifier) @name.reference.call)
 (#not-any-of? @name.reference.call "alloc" "init" "new" "retain" "release" "autorelease"))

; ---------------------------------------------------------------------------------------------
; Scopes
; ---------------------------------------------------------------------------------------------

(class_interface) @scope
(class_implementation) @scope
(protocol_declaration) @scope
