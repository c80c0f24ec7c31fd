; Julia (tree-sitter-julia 0.23).
;
; A function is defined by a signature that reads like a call (f(x::T) = ... or function f(x)
; ... end): the call's name is the definition, and extract.ts keeps a node a definition only
; (definition patterns come first). A method added to another module's function (Base.show) is
; defined by its last name.

; ---------------------------------------------------------------------------------------------
; Definitions
; ---------------------------------------------------------------------------------------------

(module_definition name: (identifier) @name.definition.module)
(abstract_definition (type_head (identifier) @name.definition.type))
(abstract_definition (type_head (binary_expression . (identifier) @name.definition.type)))
(struct_definition (type_head (identifier) @name.definition.class))
(struct_definition (type_head (binary_expression . (identifier) @name.definition.class)))
(struct_definition (typed_expression . (identifier) @name.definition.field))
(struct_definition (identifier) @name.definition.field)

(function_definition (signature (call_expression . (identifier) @name.definition.function)))
(function_definition (signature (call_expression . (field_expression (identifier) @name.definition.function .))))
(function_definition (signature (typed_expression . (call_expression . (identifier) @name.definition.function))))
(macro_definition (signature (call_expression . (identifier) @name.definition.macro)))
; Short form: f(x) = ..., at the top level or in a module.
(source_file (assignment . (call_expression . (identifier) @name.definition.function)))
(module_definition (assignment . (call_expression . (identifier) @name.definition.function)))
(source_file (assignment . (call_expression . (field_expression (identifier) @name.definition.function .))))
(module_definition (assignment . (call_expression . (field_expression (identifier) @name.definition.function .))))

(const_statement (assignment . (identifier) @name.definition.constant))

; ---------------------------------------------------------------------------------------------
; References
; ---------------------------------------------------------------------------------------------

(using_statement (identifier) @name.reference.import)
(import_statement (identifier) @name.reference.import)
(import_statement (selected_import (identifier) @name.reference.import))

; Supertypes: struct A <: B.
(type_head (binary_expression (identifier) (operator) (identifier) @name.reference.inheritance .))

; Calls: f(x), M.f(x), f.(x), @m ... (macros). Base's everyday functions are left out.
((call_expression . (identifier) @name.reference.call)
 (#not-any-of? @name.reference.call
   "println" "print" "show" "string" "length" "push!" "pop!" "append!" "isempty" "first" "last"
   "map" "filter" "reduce" "sum" "sort" "min" "max" "abs" "round" "collect" "zeros" "ones"
   "error" "throw" "typeof" "convert" "esc" "include" "haskey" "get" "keys" "values"))
(call_expression . (field_expression (identifier) @name.reference.call .))
(broadcast_call_expression . (identifier) @name.reference.call)
(macrocall_expression (macro_identifier (identifier) @name.reference.call))

; Types: x::T, Vector{T}, builtins left out.
(([
  (typed_expression (identifier) @name.reference.type .)
  (parametrized_type_expression . (identifier) @name.reference.type)
  (curly_expression (identifier) @name.reference.type)
 ])
 (#not-any-of? @name.reference.type
   "Int" "Int8" "Int16" "Int32" "Int64" "UInt" "UInt8" "Float32" "Float64" "Bool" "String" "Char"
   "Symbol" "Any" "Nothing" "Vector" "Matrix" "Array" "Dict" "Set" "Tuple" "IO" "Real" "Number"
   "Integer" "AbstractString" "AbstractVector" "AbstractArray" "Function" "Expr"))

; ---------------------------------------------------------------------------------------------
; Scopes
; ---------------------------------------------------------------------------------------------

(module_definition) @scope
(struct_definition) @scope
(function_definition) @scope
(macro_definition) @scope

; ---------------------------------------------------------------------------------------------
; Modules (FileNames.modules)
; ---------------------------------------------------------------------------------------------

; using/import M (a package or module name); include("file.jl") (a file, relative to this one).
(using_statement (identifier) @module.import)
(import_statement (identifier) @module.import)
(import_statement (selected_import . (identifier) @module.import))
((call_expression . (identifier) @_include (argument_list . (string_literal (content) @module.relative)))
 (#eq? @_include "include"))
