; R (@davisvaughan/tree-sitter-r 1.3).
;
; R defines by assignment: a top-level `name <- function(...)` (or `=`) is a function, one
; bound to setRefClass/R6Class/setClass a class (its named function entries, methods), any other
; top-level binding a constant. Ordering matters: extract.ts keeps the first tag per node.

; ---------------------------------------------------------------------------------------------
; Definitions
; ---------------------------------------------------------------------------------------------

(program (binary_operator lhs: (identifier) @name.definition.function operator: ["<-" "=" "<<-"] rhs: (function_definition)))
((program (binary_operator lhs: (identifier) @name.definition.class rhs: (call function: (identifier) @_constructor)))
 (#any-of? @_constructor "setRefClass" "R6Class" "setClass"))
((call
   function: (identifier) @_constructor
   arguments: (arguments (argument value: (call arguments: (arguments (argument name: (identifier) @name.definition.method value: (function_definition)))))))
 (#any-of? @_constructor "setRefClass" "R6Class"))
(program (binary_operator lhs: (identifier) @name.definition.constant operator: ["<-" "=" "<<-"]))

; ---------------------------------------------------------------------------------------------
; References
; ---------------------------------------------------------------------------------------------

((call function: (identifier) @_load arguments: (arguments . (argument value: (identifier) @name.reference.import)))
 (#any-of? @_load "library" "require" "requireNamespace"))

; Calls: f(x), pkg::f(x). Base R's everyday functions are left out.
((call function: (identifier) @name.reference.call)
 (#not-any-of? @name.reference.call
   "library" "require" "source" "function" "return" "list" "c" "vector" "length" "print" "cat"
   "paste" "paste0" "sprintf" "format" "head" "tail" "min" "max" "sum" "mean" "order" "sort"
   "sapply" "lapply" "vapply" "mapply" "Map" "Filter" "Reduce" "do.call" "is.null" "stop"
   "warning" "message" "structure" "class" "names" "seq_along" "seq_len" "rep" "unlist"
   "setRefClass" "R6Class" "setClass" "new" "invisible" "identical" "nrow" "ncol"))
(call function: (namespace_operator rhs: (identifier) @name.reference.call))

; ---------------------------------------------------------------------------------------------
; Scopes
; ---------------------------------------------------------------------------------------------

(binary_operator rhs: (function_definition)) @scope
(argument name: (identifier) value: (function_definition)) @scope
((binary_operator rhs: (call function: (identifier) @_constructor)) @scope
 (#any-of? @_constructor "setRefClass" "R6Class" "setClass"))

; ---------------------------------------------------------------------------------------------
; Modules (FileNames.modules)
; ---------------------------------------------------------------------------------------------

; library(pkg) and source("path/file.R") (a path from the working directory, as written).
((call function: (identifier) @_load arguments: (arguments . (argument value: (identifier) @module.import)))
 (#any-of? @_load "library" "require" "requireNamespace"))
((call function: (identifier) @_source arguments: (arguments . (argument value: (string (string_content) @module.import))))
 (#eq? @_source "source"))
