; Zig (@tree-sitter-grammars/tree-sitter-zig 1.1).
;
; Zig names a type by binding it: `const Item = struct { ... }`. Such a binding is a class (or an
; enum); any other top-level const or var is a constant, except `@import` bindings (a module's
; local name, as an import elsewhere). Ordering matters: extract.ts keeps the first tag per node.

; ---------------------------------------------------------------------------------------------
; Definitions
; ---------------------------------------------------------------------------------------------

(variable_declaration (identifier) @name.definition.class [(struct_declaration) (union_declaration) (opaque_declaration)])
(variable_declaration (identifier) @name.definition.enum (enum_declaration))
((source_file (variable_declaration (identifier) @name.definition.constant) @_declaration)
 (#not-match? @_declaration "@import"))

; Functions in a container are methods; at the top level, functions.
(struct_declaration (function_declaration name: (identifier) @name.definition.method))
(union_declaration (function_declaration name: (identifier) @name.definition.method))
(enum_declaration (function_declaration name: (identifier) @name.definition.method))
(function_declaration name: (identifier) @name.definition.function)

(struct_declaration (container_field name: (identifier) @name.definition.field))
(union_declaration (container_field name: (identifier) @name.definition.field))
(enum_declaration (container_field name: (identifier) @name.definition.constant))

; ---------------------------------------------------------------------------------------------
; References
; ---------------------------------------------------------------------------------------------

; Calls: f(x), a.b.f(x).
(call_expression function: (identifier) @name.reference.call)
(call_expression function: (field_expression member: (identifier) @name.reference.call))

; Construction: Item{ ... }, a.Item{ ... }.
(struct_initializer . (identifier) @name.reference.new)
(struct_initializer . (field_expression member: (identifier) @name.reference.new))

; Types: a parameter's, a return type, a field's, behind a pointer, optional or slice, a
; type argument (capitalized by convention: ArrayList(Item)).
(parameter type: (identifier) @name.reference.type)
(function_declaration type: (identifier) @name.reference.type)
(container_field type: (identifier) @name.reference.type)
(variable_declaration type: (identifier) @name.reference.type)
(parameter type: (field_expression member: (identifier) @name.reference.type))
(pointer_type (identifier) @name.reference.type)
(nullable_type (identifier) @name.reference.type)
(slice_type (identifier) @name.reference.type)
((array_type (identifier) @name.reference.type) (#not-eq? @name.reference.type "_"))
((call_expression (identifier) @name.reference.type)
 (#match? @name.reference.type "^[A-Z]"))

; ---------------------------------------------------------------------------------------------
; Scopes
; ---------------------------------------------------------------------------------------------

(variable_declaration [(struct_declaration) (union_declaration) (enum_declaration) (opaque_declaration)]) @scope
(function_declaration) @scope
(test_declaration) @scope

; ---------------------------------------------------------------------------------------------
; Modules (FileNames.modules)
; ---------------------------------------------------------------------------------------------

; @import("std") (a package) and @import("pricing.zig") (a file, relative to the importing one).
((builtin_function (builtin_identifier) @_builtin (arguments (string (string_content) @module.relative)))
 (#eq? @_builtin "@import")
 (#match? @module.relative "\\.zig$"))
((builtin_function (builtin_identifier) @_builtin (arguments (string (string_content) @module.import)))
 (#eq? @_builtin "@import")
 (#not-match? @module.import "\\.zig$"))
