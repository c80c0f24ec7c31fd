; C# (tree-sitter-c-sharp 0.23).
;
; Ordering matters: extract.ts keeps the first tag per name node, and tree-sitter returns the
; captures of one node in pattern order. So a more specific pattern (constant, new, inheritance)
; comes before a general one (field, type) matching the same node.
;
; Not captured: constructors and destructors (they repeat the type's name, which the type already
; defines). Type names are plain `identifier` nodes in this grammar, so type references are found
; by the fields that hold types.

; ---------------------------------------------------------------------------------------------
; Definitions
; ---------------------------------------------------------------------------------------------

(class_declaration name: (identifier) @name.definition.class)
(record_declaration name: (identifier) @name.definition.class)
(struct_declaration name: (identifier) @name.definition.struct)
(interface_declaration name: (identifier) @name.definition.interface)
(enum_declaration name: (identifier) @name.definition.enum)
(delegate_declaration name: (identifier) @name.definition.type)

; namespace A.B { ... } and namespace A.B; (the innermost name, which `using A.B;` refers to).
(namespace_declaration
  name: [
    (identifier) @name.definition.module
    (qualified_name name: (identifier) @name.definition.module)
  ])
(file_scoped_namespace_declaration
  name: [
    (identifier) @name.definition.module
    (qualified_name name: (identifier) @name.definition.module)
  ])

(method_declaration name: (identifier) @name.definition.method)
(local_function_statement name: (identifier) @name.definition.function)

; Constants: const fields, static readonly fields, enum members.
((field_declaration
  (modifier) @_modifier
  (variable_declaration (variable_declarator name: (identifier) @name.definition.constant)))
 (#eq? @_modifier "const"))
((field_declaration
  (modifier) @_static
  (modifier) @_readonly
  (variable_declaration (variable_declarator name: (identifier) @name.definition.constant)))
 (#eq? @_static "static")
 (#eq? @_readonly "readonly"))
(enum_member_declaration name: (identifier) @name.definition.constant)

; Fields, properties and events.
(field_declaration (variable_declaration (variable_declarator name: (identifier) @name.definition.field)))
(property_declaration name: (identifier) @name.definition.field)
(event_field_declaration (variable_declaration (variable_declarator name: (identifier) @name.definition.field)))
(event_declaration name: (identifier) @name.definition.field)

; ---------------------------------------------------------------------------------------------
; References
; ---------------------------------------------------------------------------------------------

; using A.B.C; and using Alias = A.B.C; (the last part). `using static` too.
(using_directive
  [
    (identifier) @name.reference.import
    (qualified_name name: (identifier) @name.reference.import)
  ]
  .)

; Attributes: [Serializable], [Route("x")], [Ns.Attr].
(attribute
  name: [
    (identifier) @name.reference.decorator
    (qualified_name name: (identifier) @name.reference.decorator)
  ])

; Base types: class A : Base<T>, IFoo, Ns.IBar.
(base_list
  [
    (identifier) @name.reference.inheritance
    (generic_name . (identifier) @name.reference.inheritance)
    (qualified_name
      name: [
        (identifier) @name.reference.inheritance
        (generic_name . (identifier) @name.reference.inheritance)
      ])
  ])

; Construction: new Foo(...), new List<T>(), new Ns.Foo { ... }.
(object_creation_expression
  type: [
    (identifier) @name.reference.new
    (generic_name . (identifier) @name.reference.new)
    (qualified_name
      name: [
        (identifier) @name.reference.new
        (generic_name . (identifier) @name.reference.new)
      ])
  ])

; Calls: F(), G<T>(), obj.F(), Type.F<T>(), obj?.F().
(invocation_expression
  function: [
    (identifier) @name.reference.call
    (generic_name . (identifier) @name.reference.call)
    (member_access_expression
      name: [
        (identifier) @name.reference.call
        (generic_name . (identifier) @name.reference.call)
      ])
  ])
(invocation_expression
  function: (conditional_access_expression
    (member_binding_expression
      name: [
        (identifier) @name.reference.call
        (generic_name . (identifier) @name.reference.call)
      ])))

; Type uses: the types of fields, properties, variables, parameters and constraints, return
; types, and type arguments (nullable, array and tuple types included through their `type`).
(_
  [
    type: (identifier) @name.reference.type
    type: (generic_name . (identifier) @name.reference.type)
    type: (qualified_name
      name: [
        (identifier) @name.reference.type
        (generic_name . (identifier) @name.reference.type)
      ])
    returns: (identifier) @name.reference.type
    returns: (generic_name . (identifier) @name.reference.type)
    returns: (qualified_name
      name: [
        (identifier) @name.reference.type
        (generic_name . (identifier) @name.reference.type)
      ])
  ])
(type_argument_list
  [
    (identifier) @name.reference.type
    (generic_name . (identifier) @name.reference.type)
    (qualified_name
      name: [
        (identifier) @name.reference.type
        (generic_name . (identifier) @name.reference.type)
      ])
  ])

; ---------------------------------------------------------------------------------------------
; Scopes
; ---------------------------------------------------------------------------------------------

; A declaration with attributes starts at its first attribute list, a line that is not its
; header: no node starts at the `class` line and spans the body (and in C#'s brace style the
; body's first line is a lone `{`). So only declarations without attributes are scopes: the
; first named child of the others is an attribute_list.
(namespace_declaration) @scope
(class_declaration . [(modifier) (identifier)]) @scope
(record_declaration . [(modifier) (identifier)]) @scope
(struct_declaration . [(modifier) (identifier)]) @scope
(interface_declaration . [(modifier) (identifier)]) @scope
(enum_declaration . [(modifier) (identifier)]) @scope
(method_declaration . [(modifier) (identifier) (predefined_type) (generic_name) (qualified_name) (nullable_type) (array_type) (tuple_type) (pointer_type) (ref_type)]) @scope
(constructor_declaration . [(modifier) (identifier)]) @scope

; ---------------------------------------------------------------------------------------------
; Modules (FileNames.modules)
; ---------------------------------------------------------------------------------------------

; using A.B; using static A.B.C; using X = A.B; (not the using statement of a block).
(using_directive [(identifier) (qualified_name)] @module.import .)
