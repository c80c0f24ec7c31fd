; Elm (@elm-tooling/tree-sitter-elm 5.9).
;
; Ordering matters: extract.ts keeps the first tag per node (definition patterns come first).
; A top-level value is a function (with or without arguments: Elm has no other top-level
; binding), defined where its type annotation is (the line a map shows best, as for Haskell): a
; value without an annotation is not captured.

; ---------------------------------------------------------------------------------------------
; Definitions
; ---------------------------------------------------------------------------------------------

(module_declaration name: (upper_case_qid) @name.definition.module)
(type_alias_declaration name: (upper_case_identifier) @name.definition.type)
(type_declaration name: (upper_case_identifier) @name.definition.enum)
(union_variant name: (upper_case_identifier) @name.definition.constant)
(type_alias_declaration (type_expression (record_type (field_type name: (lower_case_identifier) @name.definition.field))))
(file (type_annotation name: (lower_case_identifier) @name.definition.function))
(port_annotation name: (lower_case_identifier) @name.definition.function)

; ---------------------------------------------------------------------------------------------
; References
; ---------------------------------------------------------------------------------------------

; import M exposing (a, T): the names exposed.
(import_clause exposing: (exposing_list (exposed_value (lower_case_identifier) @name.reference.import)))
(import_clause exposing: (exposing_list (exposed_type (upper_case_identifier) @name.reference.import)))

; Calls: f x, M.f x; constructors: Active, M.Active.
(function_call_expr target: (value_expr name: (value_qid (lower_case_identifier) @name.reference.call .)))
((value_qid (upper_case_identifier) @name.reference.new .)
 (#not-any-of? @name.reference.new "True" "False" "Nothing" "Just" "Ok" "Err"))

; Types, the core library's left out.
((type_ref (upper_case_qid (upper_case_identifier) @name.reference.type .))
 (#not-any-of? @name.reference.type
   "Int" "Float" "String" "Char" "Bool" "List" "Maybe" "Result" "Dict" "Set" "Array" "Cmd" "Sub"
   "Html" "Attribute" "Never"))

; ---------------------------------------------------------------------------------------------
; Scopes
; ---------------------------------------------------------------------------------------------

(type_declaration) @scope
(type_alias_declaration) @scope

; ---------------------------------------------------------------------------------------------
; Modules (FileNames.modules)
; ---------------------------------------------------------------------------------------------

(import_clause moduleName: (upper_case_qid) @module.import)
