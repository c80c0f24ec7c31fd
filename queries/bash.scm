; Bash (tree-sitter-bash 0.25).
;
; Ordering matters: extract.ts keeps the first tag per name node, and tree-sitter returns the
; captures of one node in pattern order.
;
; Not captured: `source FILE` and `. FILE` (they name files, not identifiers), uses of variables
; ($NAME), and functions passed by name as arguments (trap handler ERR).

; ---------------------------------------------------------------------------------------------
; Definitions
; ---------------------------------------------------------------------------------------------

; name() { ... } and function name { ... }, at any level.
(function_definition name: (word) @name.definition.function)

; Variables set at the top of the script: NAME=value, readonly/export/declare NAME=value.
; Locals and assignments inside functions or loops are not listed.
(program (variable_assignment name: (variable_name) @name.definition.constant))
(program (declaration_command (variable_assignment name: (variable_name) @name.definition.constant)))

; ---------------------------------------------------------------------------------------------
; References
; ---------------------------------------------------------------------------------------------

; Commands: every command name, a function of the script or another command. Shell builtins
; and the everyday utilities are left out: they never resolve to a definition in the repository.
((command name: (command_name (word) @name.reference.call))
 (#not-any-of? @name.reference.call
   "echo" "printf" "cd" "pwd" "set" "unset" "source" "." "export" "local" "readonly" "declare"
   "read" "test" "[" "[[" "exit" "return" "shift" "trap" "eval" "exec" "true" "false" ":"
   "command" "type" "wait" "kill" "sleep" "cat" "grep" "sed" "awk" "cut" "tr" "sort" "uniq"
   "head" "tail" "wc" "ls" "mkdir" "rm" "cp" "mv" "ln" "chmod" "chown" "touch" "find" "xargs"
   "dirname" "basename" "date" "env" "tee" "git"))

; ---------------------------------------------------------------------------------------------
; Scopes
; ---------------------------------------------------------------------------------------------

(function_definition) @scope
