; C++ (tree-sitter-cpp 0.23). The C++ query is this file followed by c.scm: the C patterns
; (functions, typedefs, structs, enums, macros, fields, calls, type uses) apply to C++ too.
;
; Ordering matters: extract.ts keeps the first tag per name node, and tree-sitter returns the
; captures of one node in pattern order. This file comes first so that its more specific
; patterns (a method, not a function; a base class, not a type) win over c.scm's.
;
; Names qualified by std:: are left out of the references: they never resolve to a definition
; in the repository.

; ---------------------------------------------------------------------------------------------
; Definitions
; ---------------------------------------------------------------------------------------------

(class_specifier
  name: [
    (type_identifier) @name.definition.class
    (template_type name: (type_identifier) @name.definition.class)
  ]
  body: (_))

; namespace a { }, namespace a::b { } (the innermost name).
(namespace_definition name: (namespace_identifier) @name.definition.module)
(namespace_definition
  name: (nested_namespace_specifier (namespace_identifier) @name.definition.module .))

; using Handle = ...; (typedef is in c.scm.)
(alias_declaration name: (type_identifier) @name.definition.type)

; Methods declared or defined in a class body: T *acquire(); void draw() { ... }; constructors
; (named like the class) included, destructors and operators not.
(field_declaration_list
  [
    (field_declaration
      declarator: [
        (function_declarator declarator: (field_identifier) @name.definition.method)
        (pointer_declarator declarator: (function_declarator declarator: (field_identifier) @name.definition.method))
        (reference_declarator (function_declarator declarator: (field_identifier) @name.definition.method))
      ])
    (function_definition
      declarator: [
        (function_declarator declarator: [(field_identifier) (identifier)] @name.definition.method)
        (pointer_declarator declarator: (function_declarator declarator: (field_identifier) @name.definition.method))
        (reference_declarator (function_declarator declarator: (field_identifier) @name.definition.method))
      ])
    (declaration declarator: (function_declarator declarator: (identifier) @name.definition.method))
    (template_declaration
      [
        (declaration
          declarator: [
            (function_declarator declarator: (identifier) @name.definition.method)
            (pointer_declarator declarator: (function_declarator declarator: (identifier) @name.definition.method))
            (reference_declarator (function_declarator declarator: (identifier) @name.definition.method))
          ])
        (function_definition
          declarator: [
            (function_declarator declarator: (identifier) @name.definition.method)
            (pointer_declarator declarator: (function_declarator declarator: (identifier) @name.definition.method))
            (reference_declarator (function_declarator declarator: (identifier) @name.definition.method))
          ])
      ])
  ])

; Members defined outside their class: void Renderer::draw() { ... }, T *ns::Pool<T>::acquire().
; (A namespace-qualified free function reads the same and is counted as a method too.)
(function_definition
  declarator: [
    (function_declarator
      declarator: (qualified_identifier
        [
          name: (identifier) @name.definition.method
          name: (qualified_identifier
            [
              name: (identifier) @name.definition.method
              name: (qualified_identifier name: (identifier) @name.definition.method)
            ])
        ]))
    (pointer_declarator
      declarator: (function_declarator
        declarator: (qualified_identifier
          [
            name: (identifier) @name.definition.method
            name: (qualified_identifier
              [
                name: (identifier) @name.definition.method
                name: (qualified_identifier name: (identifier) @name.definition.method)
              ])
          ])))
    (reference_declarator
      (function_declarator
        declarator: (qualified_identifier
          [
            name: (identifier) @name.definition.method
            name: (qualified_identifier
              [
                name: (identifier) @name.definition.method
                name: (qualified_identifier name: (identifier) @name.definition.method)
              ])
          ])))
  ])

; Variables and constants at namespace level (file scope is in c.scm).
(namespace_definition
  body: (declaration_list
    (declaration
      declarator: [
        (identifier) @name.definition.constant
        (init_declarator declarator: (identifier) @name.definition.constant)
        (init_declarator declarator: (pointer_declarator declarator: (identifier) @name.definition.constant))
        (init_declarator declarator: (reference_declarator (identifier) @name.definition.constant))
      ])))

; ---------------------------------------------------------------------------------------------
; References
; ---------------------------------------------------------------------------------------------

; Base classes: class A : public B, C<T>, ns::D.
(base_class_clause
  [
    (type_identifier) @name.reference.inheritance
    (template_type name: (type_identifier) @name.reference.inheritance)
    (qualified_identifier
      name: [
        (type_identifier) @name.reference.inheritance
        (template_type name: (type_identifier) @name.reference.inheritance)
      ])
  ])

; using ns::name; brings a name in from elsewhere.
((using_declaration
  (qualified_identifier
    scope: (_) @_scope
    name: [
      (identifier) @name.reference.import
      (qualified_identifier name: (identifier) @name.reference.import)
    ]))
 (#not-eq? @_scope "std"))

; Construction: new T(...), new ns::T, new T<U>.
(new_expression
  type: [
    (type_identifier) @name.reference.new
    (template_type name: (type_identifier) @name.reference.new)
    (qualified_identifier
      name: [
        (type_identifier) @name.reference.new
        (template_type name: (type_identifier) @name.reference.new)
      ])
  ])

; Calls beyond C's: ns::f(), Type::f(), f<T>(), obj.f<T>(), ns::f<T>().
((call_expression
  function: (qualified_identifier
    scope: (_) @_scope
    name: [
      (identifier) @name.reference.call
      (template_function name: (identifier) @name.reference.call)
      (qualified_identifier
        name: [
          (identifier) @name.reference.call
          (template_function name: (identifier) @name.reference.call)
        ])
    ]))
 (#not-eq? @_scope "std"))
(call_expression function: (template_function name: (identifier) @name.reference.call))
(call_expression
  function: (field_expression field: (template_method name: (field_identifier) @name.reference.call)))

; Types beyond C's: templates (Pool<T>), qualified names (ns::Color), template arguments.
(_
  type: (template_type name: (type_identifier) @name.reference.type))
((_
  type: (qualified_identifier
    scope: (_) @_scope
    name: [
      (type_identifier) @name.reference.type
      (template_type name: (type_identifier) @name.reference.type)
      (qualified_identifier
        name: [
          (type_identifier) @name.reference.type
          (template_type name: (type_identifier) @name.reference.type)
        ])
    ]))
 (#not-eq? @_scope "std"))

; ---------------------------------------------------------------------------------------------
; Scopes
; ---------------------------------------------------------------------------------------------

(class_specifier body: (_)) @scope
(namespace_definition) @scope
