; Kotlin (@tree-sitter-grammars/tree-sitter-kotlin 1.1).
;
; Ordering matters: extract.ts keeps the first tag per name node, and tree-sitter returns the
; captures of one node in pattern order. So a more specific pattern (interface, method, constant,
; decorator, inheritance, new) comes before a general one (class, function, field, type, call)
; matching the same node.
;
; Not captured: the package header (every file of a package would define it), constructors
; (named by the class). Kotlin calls a constructor like a function, Order(...): a call of a
; capitalized name counts as `new`.

; ---------------------------------------------------------------------------------------------
; Definitions
; ---------------------------------------------------------------------------------------------

(class_declaration "interface" name: (identifier) @name.definition.interface)
((class_declaration (modifiers (class_modifier) @_enum) name: (identifier) @name.definition.enum)
 (#eq? @_enum "enum"))
(class_declaration name: (identifier) @name.definition.class)
(object_declaration name: (identifier) @name.definition.class)
(type_alias type: (identifier) @name.definition.type)

; Functions declared in a class, object, interface or enum body are methods; others (top level,
; local, extension functions) are functions.
(class_body (function_declaration name: (identifier) @name.definition.method))
(enum_class_body (function_declaration name: (identifier) @name.definition.method))
(function_declaration name: (identifier) @name.definition.function)

; Constants: const val anywhere, any top-level property, enum entries.
((property_declaration
  (modifiers (property_modifier) @_const)
  (variable_declaration (identifier) @name.definition.constant))
 (#eq? @_const "const"))
(source_file (property_declaration (variable_declaration (identifier) @name.definition.constant)))
(enum_entry (identifier) @name.definition.constant)

; Properties of classes and objects, and constructor parameters declared with val or var.
(class_body (property_declaration (variable_declaration (identifier) @name.definition.field)))
(class_parameter ["val" "var"] (identifier) @name.definition.field)

; ---------------------------------------------------------------------------------------------
; References
; ---------------------------------------------------------------------------------------------

; import a.b.C and import a.b.C as D (C, the name as declared); not a.b.* (a package).
((import . (qualified_identifier (identifier) @name.reference.import .)) @_import
 (#not-match? @_import "\\*"))

; Annotations: @Serializable, @Named("x"), @a.b.Annotation.
(annotation
  [
    (user_type (identifier) @name.reference.decorator .)
    (user_type (identifier) @name.reference.decorator . (type_arguments))
    (constructor_invocation (user_type (identifier) @name.reference.decorator .))
  ])

; Supertypes: class A : Base(), Iface, Generic<T>, by-delegation included.
(delegation_specifier
  [
    (user_type (identifier) @name.reference.inheritance .)
    (user_type (identifier) @name.reference.inheritance . (type_arguments))
    (constructor_invocation
      [
        (user_type (identifier) @name.reference.inheritance .)
        (user_type (identifier) @name.reference.inheritance . (type_arguments))
      ])
    (explicit_delegation
      [
        (user_type (identifier) @name.reference.inheritance .)
        (user_type (identifier) @name.reference.inheritance . (type_arguments))
      ])
  ])

; Construction: Foo(...), pkg.Foo(...) (by the capital letter).
((call_expression . (identifier) @name.reference.new)
 (#match? @name.reference.new "^[A-Z]"))
((call_expression . (navigation_expression (identifier) @name.reference.new .))
 (#match? @name.reference.new "^[A-Z]"))

; Calls: f(), obj.f(), obj?.f(), f<T>(), f { ... }. The standard library's everyday functions are
; left out: they never resolve to a definition in the repository.
((call_expression . (identifier) @name.reference.call)
 (#not-any-of? @name.reference.call
   "println" "print" "listOf" "mutableListOf" "emptyList" "setOf" "mutableSetOf" "mapOf"
   "mutableMapOf" "emptyMap" "arrayOf" "lazy" "require" "requireNotNull" "check" "error" "TODO"
   "repeat" "run" "let" "apply" "also" "with" "takeIf" "to"))
((call_expression . (navigation_expression (identifier) @name.reference.call .))
 (#not-any-of? @name.reference.call "let" "apply" "also" "run" "takeIf" "to"))

; Type uses: every user_type is one (declared names are plain identifiers). A qualified type
; (a.b.C<T>) counts by its last name. Builtin types are left out.
(([
  (user_type (identifier) @name.reference.type .)
  (user_type (identifier) @name.reference.type . (type_arguments))
 ])
 (#not-any-of? @name.reference.type
   "Int" "Long" "Short" "Byte" "Double" "Float" "Boolean" "Char" "String" "Unit" "Any" "Nothing"
   "Array"))

; ---------------------------------------------------------------------------------------------
; Scopes
; ---------------------------------------------------------------------------------------------

; An annotated declaration starts at its first annotation (often on a line of its own); then the
; body's first line (the `class X {` line in Kotlin's brace style) is the header instead.
((class_declaration (modifiers)? @_modifiers) @scope (#not-match? @_modifiers "@"))
((class_declaration (modifiers) @_modifiers [(class_body) (enum_class_body)] @scope)
 (#match? @_modifiers "@"))
((object_declaration (modifiers)? @_modifiers) @scope (#not-match? @_modifiers "@"))
((object_declaration (modifiers) @_modifiers (class_body) @scope) (#match? @_modifiers "@"))
(companion_object) @scope
((function_declaration (modifiers)? @_modifiers) @scope (#not-match? @_modifiers "@"))
((function_declaration (modifiers) @_modifiers (function_body) @scope) (#match? @_modifiers "@"))

; ---------------------------------------------------------------------------------------------
; Modules (FileNames.modules)
; ---------------------------------------------------------------------------------------------

; import a.b.C [as D]; import a.b.* (kept as a.b.*: module.wildcard).
((import . (qualified_identifier) @module.import) @_import
 (#not-match? @_import "\\*"))
((import . (qualified_identifier) @module.wildcard) @_import
 (#match? @_import "\\*"))
