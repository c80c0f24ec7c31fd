; D (tree-sitter-d 0.8).
;
; Ordering matters: extract.ts keeps the first tag per node. Functions in an aggregate (class,
; struct, interface, union) are methods; others are functions. A call through a variable
; (rates.format(...)) parses as a call of a qualified `type`: its last name is the call.

; ---------------------------------------------------------------------------------------------
; Definitions
; ---------------------------------------------------------------------------------------------

(class_declaration (identifier) @name.definition.class)
(struct_declaration (identifier) @name.definition.struct)
(union_declaration (identifier) @name.definition.struct)
(interface_declaration (identifier) @name.definition.interface)
(enum_declaration (identifier) @name.definition.enum)
(enum_member (identifier) @name.definition.constant)
(manifest_constant (manifest_declarator . (identifier) @name.definition.constant))
(aggregate_body (function_declaration (identifier) @name.definition.method))
(function_declaration (identifier) @name.definition.function)
(aggregate_body (variable_declaration (declarator . (identifier) @name.definition.field)))

; ---------------------------------------------------------------------------------------------
; References
; ---------------------------------------------------------------------------------------------

(import_declaration (import_bind . (identifier) @name.reference.import))
(base_class (identifier) @name.reference.inheritance)

(call_expression . (new_expression (type (identifier) @name.reference.new .)))
((call_expression . (identifier) @name.reference.call)
 (#not-any-of? @name.reference.call "writeln" "writefln" "write" "format" "to" "min" "max" "assert" "enforce"))
(call_expression . (type (identifier) @name.reference.call .))
(call_expression . (property_expression (identifier) @name.reference.call .))

; Types of parameters, results, fields and variables (builtin types are nodes of their own).
(parameter (type (identifier) @name.reference.type))
(function_declaration (type (identifier) @name.reference.type))
(variable_declaration (type (identifier) @name.reference.type))

; ---------------------------------------------------------------------------------------------
; Scopes
; ---------------------------------------------------------------------------------------------

(class_declaration) @scope
(struct_declaration) @scope
(union_declaration) @scope
(interface_declaration) @scope
(enum_declaration) @scope
(function_declaration) @scope

; ---------------------------------------------------------------------------------------------
; Modules (FileNames.modules)
; ---------------------------------------------------------------------------------------------

(import_declaration (imported (module_fqn) @module.import))
