; Java (tree-sitter-java 0.23).
;
; Ordering matters: extract.ts keeps the first tag per name node, and tree-sitter returns the
; captures of one node in pattern order. So a more specific pattern (constant, new, inheritance)
; comes before a general one (field, type) matching the same node.
;
; Not captured: the package declaration (every file of a package would define it) and
; constructors (they repeat the class name, which the class already defines).

; ---------------------------------------------------------------------------------------------
; Definitions
; ---------------------------------------------------------------------------------------------

(class_declaration name: (identifier) @name.definition.class)
(record_declaration name: (identifier) @name.definition.class)
(interface_declaration name: (identifier) @name.definition.interface)
(annotation_type_declaration name: (identifier) @name.definition.interface)
(enum_declaration name: (identifier) @name.definition.enum)

; Methods of classes, interfaces, enums and records; elements of annotation types.
(method_declaration name: (identifier) @name.definition.method)
(annotation_type_element_declaration name: (identifier) @name.definition.method)

; Constants: enum constants, interface fields (implicitly static final) and static final fields.
(enum_constant name: (identifier) @name.definition.constant)
(constant_declaration declarator: (variable_declarator name: (identifier) @name.definition.constant))
((field_declaration
  (modifiers) @_modifiers
  declarator: (variable_declarator name: (identifier) @name.definition.constant))
 (#match? @_modifiers "(^|\\s)static(\\s|$)")
 (#match? @_modifiers "(^|\\s)final(\\s|$)"))
(field_declaration declarator: (variable_declarator name: (identifier) @name.definition.field))

; ---------------------------------------------------------------------------------------------
; References
; ---------------------------------------------------------------------------------------------

; Imports: the last part of the name (a class, or a static member); not wildcard imports, whose
; last part is a package.
(import_declaration (scoped_identifier name: (identifier) @name.reference.import) .)

; Annotations: @Service, @Table(name = "x"), @javax.inject.Inject. The language's own annotations
; never resolve to a definition in the repository.
((marker_annotation
  name: [
    (identifier) @name.reference.decorator
    (scoped_identifier name: (identifier) @name.reference.decorator)
  ])
 (#not-any-of? @name.reference.decorator
   "Override" "Deprecated" "SuppressWarnings" "SafeVarargs" "FunctionalInterface"))
((annotation
  name: [
    (identifier) @name.reference.decorator
    (scoped_identifier name: (identifier) @name.reference.decorator)
  ])
 (#not-any-of? @name.reference.decorator
   "Override" "Deprecated" "SuppressWarnings" "SafeVarargs" "FunctionalInterface"))

; Inheritance: extends (classes), implements (classes, enums, records), extends (interfaces).
; A qualified or generic name counts by its last plain name: a.b.Base<T> is Base.
(superclass
  [
    (type_identifier) @name.reference.inheritance
    (scoped_type_identifier (type_identifier) @name.reference.inheritance .)
    (generic_type
      [
        (type_identifier) @name.reference.inheritance
        (scoped_type_identifier (type_identifier) @name.reference.inheritance .)
      ])
  ])
(super_interfaces
  (type_list
    [
      (type_identifier) @name.reference.inheritance
      (scoped_type_identifier (type_identifier) @name.reference.inheritance .)
      (generic_type
        [
          (type_identifier) @name.reference.inheritance
          (scoped_type_identifier (type_identifier) @name.reference.inheritance .)
        ])
    ]))
(extends_interfaces
  (type_list
    [
      (type_identifier) @name.reference.inheritance
      (scoped_type_identifier (type_identifier) @name.reference.inheritance .)
      (generic_type
        [
          (type_identifier) @name.reference.inheritance
          (scoped_type_identifier (type_identifier) @name.reference.inheritance .)
        ])
    ]))

; Construction: new Item(...), new a.b.Item<T>(...), anonymous classes included.
(object_creation_expression
  type: [
    (type_identifier) @name.reference.new
    (scoped_type_identifier (type_identifier) @name.reference.new .)
    (generic_type
      [
        (type_identifier) @name.reference.new
        (scoped_type_identifier (type_identifier) @name.reference.new .)
      ])
  ])

; Calls: f(), obj.f(), Type.f(), this.<T>f(), super.f(); and method references (Type::f).
(method_invocation name: (identifier) @name.reference.call)
(method_reference (_) (identifier) @name.reference.call .)

; Type uses: declared types of fields, variables, parameters and methods, type arguments and
; bounds, throws clauses, catch types, casts, instanceof and array elements. Declared names are
; `identifier` nodes in this grammar, so every type_identifier listed here is a use; only the type
; parameters' own names (class Box<T>) are type_identifiers that are not, and they are not listed.
; Qualified names count by their last part; `var` and java.lang's everyday types are left out.
([
  (_
    type: [
      (type_identifier) @name.reference.type
      (scoped_type_identifier (type_identifier) @name.reference.type .)
      (generic_type
        [
          (type_identifier) @name.reference.type
          (scoped_type_identifier (type_identifier) @name.reference.type .)
        ])
      (array_type
        element: [
          (type_identifier) @name.reference.type
          (scoped_type_identifier (type_identifier) @name.reference.type .)
          (generic_type
            [
              (type_identifier) @name.reference.type
              (scoped_type_identifier (type_identifier) @name.reference.type .)
            ])
        ])
    ])
  (instanceof_expression
    right: [
      (type_identifier) @name.reference.type
      (scoped_type_identifier (type_identifier) @name.reference.type .)
      (generic_type (type_identifier) @name.reference.type)
    ])
  (type_arguments
    [
      (type_identifier) @name.reference.type
      (scoped_type_identifier (type_identifier) @name.reference.type .)
      (generic_type
        [
          (type_identifier) @name.reference.type
          (scoped_type_identifier (type_identifier) @name.reference.type .)
        ])
      (array_type
        element: [
          (type_identifier) @name.reference.type
          (generic_type (type_identifier) @name.reference.type)
        ])
      (wildcard
        [
          (type_identifier) @name.reference.type
          (generic_type (type_identifier) @name.reference.type)
        ])
    ])
  (type_bound
    [
      (type_identifier) @name.reference.type
      (scoped_type_identifier (type_identifier) @name.reference.type .)
      (generic_type
        [
          (type_identifier) @name.reference.type
          (scoped_type_identifier (type_identifier) @name.reference.type .)
        ])
      (array_type
        element: [
          (type_identifier) @name.reference.type
          (generic_type (type_identifier) @name.reference.type)
        ])
    ])
  (throws
    [
      (type_identifier) @name.reference.type
      (scoped_type_identifier (type_identifier) @name.reference.type .)
      (generic_type
        [
          (type_identifier) @name.reference.type
          (scoped_type_identifier (type_identifier) @name.reference.type .)
        ])
      (array_type
        element: [
          (type_identifier) @name.reference.type
          (generic_type (type_identifier) @name.reference.type)
        ])
    ])
  (catch_type
    [
      (type_identifier) @name.reference.type
      (scoped_type_identifier (type_identifier) @name.reference.type .)
      (generic_type
        [
          (type_identifier) @name.reference.type
          (scoped_type_identifier (type_identifier) @name.reference.type .)
        ])
      (array_type
        element: [
          (type_identifier) @name.reference.type
          (generic_type (type_identifier) @name.reference.type)
        ])
    ])
 ]
 (#not-any-of? @name.reference.type
   "var" "String" "Object" "Integer" "Long" "Short" "Byte" "Double" "Float" "Boolean" "Character"
   "Void" "Number" "Class"))

; ---------------------------------------------------------------------------------------------
; Scopes
; ---------------------------------------------------------------------------------------------

; An annotated declaration starts at its first annotation (often on a line of its own); then the
; body's first line (the `class X {` line in Java's brace style) is the header instead.
((class_declaration (modifiers)? @_modifiers) @scope (#not-match? @_modifiers "@"))
((class_declaration (modifiers) @_modifiers body: (_) @scope) (#match? @_modifiers "@"))
((interface_declaration (modifiers)? @_modifiers) @scope (#not-match? @_modifiers "@"))
((interface_declaration (modifiers) @_modifiers body: (_) @scope) (#match? @_modifiers "@"))
((enum_declaration (modifiers)? @_modifiers) @scope (#not-match? @_modifiers "@"))
((enum_declaration (modifiers) @_modifiers body: (_) @scope) (#match? @_modifiers "@"))
((record_declaration (modifiers)? @_modifiers) @scope (#not-match? @_modifiers "@"))
((record_declaration (modifiers) @_modifiers body: (_) @scope) (#match? @_modifiers "@"))
((annotation_type_declaration (modifiers)? @_modifiers) @scope (#not-match? @_modifiers "@"))
((annotation_type_declaration (modifiers) @_modifiers body: (_) @scope) (#match? @_modifiers "@"))
; Methods and constructors hold local and anonymous classes.
((method_declaration (modifiers)? @_modifiers body: (_)) @scope (#not-match? @_modifiers "@"))
((method_declaration (modifiers) @_modifiers body: (_) @scope) (#match? @_modifiers "@"))
((constructor_declaration (modifiers)? @_modifiers) @scope (#not-match? @_modifiers "@"))
((constructor_declaration (modifiers) @_modifiers body: (_) @scope) (#match? @_modifiers "@"))

; ---------------------------------------------------------------------------------------------
; Modules (FileNames.modules)
; ---------------------------------------------------------------------------------------------

; import a.b.C; import static a.b.C.m; import a.b.* (kept as a.b.*: module.wildcard).
(import_declaration (scoped_identifier) @module.import .)
(import_declaration (scoped_identifier) @module.wildcard (asterisk))
