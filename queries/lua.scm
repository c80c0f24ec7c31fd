; Lua (@tree-sitter-grammars/tree-sitter-lua 0.4).
;
; Ordering matters: extract.ts keeps the first tag per name node, and tree-sitter returns the
; captures of one node in pattern order. So a more specific pattern comes before a general one
; matching the same node.
;
; Not captured: require("a.b") (it names a module file, and the name it is bound to is the
; requiring file's choice).

; ---------------------------------------------------------------------------------------------
; Definitions
; ---------------------------------------------------------------------------------------------

; function f() / local function f(): functions; function M.f(): a function of table M;
; function C:m(): a method (it takes self).
(function_declaration name: (identifier) @name.definition.function)
(function_declaration name: (dot_index_expression field: (identifier) @name.definition.function))
(function_declaration name: (method_index_expression method: (identifier) @name.definition.method))

; f = function () ... end, local f = function ..., M.f = function ...; and functions in table
; constructors: { run = function () ... end }.
(assignment_statement
  (variable_list
    .
    name: [
      (identifier) @name.definition.function
      (dot_index_expression field: (identifier) @name.definition.function)
    ])
  (expression_list . value: (function_definition)))
(field name: (identifier) @name.definition.method value: (function_definition))

; Variables set at the top of the file (local or global), unless bound to a require().
((chunk
  [
    (variable_declaration
      (assignment_statement
        (variable_list name: (identifier) @name.definition.constant)
        (expression_list value: (_) @_value)))
    (assignment_statement
      (variable_list name: (identifier) @name.definition.constant)
      (expression_list value: (_) @_value))
  ])
 (#not-match? @_value "^require[ (\"']"))

; ---------------------------------------------------------------------------------------------
; References
; ---------------------------------------------------------------------------------------------

; Calls: f(), M.f(), obj:m(), f "x", f { ... }. Lua's own functions and those of its standard
; tables (string.format, table.insert...) are left out: they never resolve to a definition in
; the repository.
((function_call name: (identifier) @name.reference.call)
 (#not-any-of? @name.reference.call
   "require" "print" "type" "tostring" "tonumber" "pairs" "ipairs" "next" "select" "error"
   "assert" "pcall" "xpcall" "setmetatable" "getmetatable" "rawget" "rawset" "rawequal"
   "unpack"))
((function_call
  name: (dot_index_expression
    table: (_) @_table
    field: (identifier) @name.reference.call))
 (#not-any-of? @_table "string" "table" "math" "os" "io" "coroutine" "debug" "utf8" "package"))
(function_call name: (method_index_expression method: (identifier) @name.reference.call))

; ---------------------------------------------------------------------------------------------
; Scopes
; ---------------------------------------------------------------------------------------------

(function_declaration) @scope
(assignment_statement (expression_list . value: (function_definition))) @scope
(variable_declaration (assignment_statement (expression_list . value: (function_definition)))) @scope
(field value: (function_definition)) @scope
