; C (tree-sitter-c 0.24), and the part of C++ that C++ shares with it: the C++ query is cpp.scm
; followed by this file, so every pattern here must also compile against tree-sitter-cpp 0.23.
;
; Ordering matters: extract.ts keeps the first tag per name node, and tree-sitter returns the
; captures of one node in pattern order. So a more specific pattern comes before a general one
; matching the same node.
;
; #include "x.h" names a file, not an identifier: it is captured as a module (at the end).

; ---------------------------------------------------------------------------------------------
; Definitions
; ---------------------------------------------------------------------------------------------

; Functions: definitions, and prototypes (in a header they are the interface). The name sits
; under the pointer declarators of the return type: char **name(...).
(function_definition
  declarator: [
    (function_declarator declarator: (identifier) @name.definition.function)
    (pointer_declarator declarator: (function_declarator declarator: (identifier) @name.definition.function))
    (pointer_declarator
      declarator: (pointer_declarator
        declarator: (function_declarator declarator: (identifier) @name.definition.function)))
  ])
(declaration
  declarator: [
    (function_declarator declarator: (identifier) @name.definition.function)
    (pointer_declarator declarator: (function_declarator declarator: (identifier) @name.definition.function))
    (pointer_declarator
      declarator: (pointer_declarator
        declarator: (function_declarator declarator: (identifier) @name.definition.function)))
  ])

; Tagged types with a body (struct Queue { ... }); `struct Queue *q` is a use, below.
(struct_specifier name: (type_identifier) @name.definition.struct body: (_))
(union_specifier name: (type_identifier) @name.definition.struct body: (_))
(enum_specifier name: (type_identifier) @name.definition.enum body: (_))

; typedef ... Name; typedef ... *Name; typedef int (*Name)(...); typedef int Name[4].
(type_definition
  declarator: [
    (type_identifier) @name.definition.type
    (pointer_declarator declarator: (type_identifier) @name.definition.type)
    (array_declarator declarator: (type_identifier) @name.definition.type)
    (function_declarator
      declarator: (parenthesized_declarator
        (pointer_declarator declarator: (type_identifier) @name.definition.type)))
    (pointer_declarator
      declarator: (function_declarator
        declarator: (parenthesized_declarator
          (pointer_declarator declarator: (type_identifier) @name.definition.type))))
  ])

; Macros: object-like ones are constants, function-like ones macros. A #define without a value
; is an include guard or a flag, not a definition to show.
(preproc_def name: (identifier) @name.definition.constant value: (_))
(preproc_function_def name: (identifier) @name.definition.macro)

(enumerator name: (identifier) @name.definition.constant)

; File-scope variables (at the top, or in the #if/#ifdef blocks of a header): int x = 0;
; static const char *name; extern int verbosity; int table[16]. Locals are not listed.
(translation_unit
  (declaration
    declarator: [
      (identifier) @name.definition.constant
      (init_declarator declarator: (identifier) @name.definition.constant)
      (init_declarator declarator: (pointer_declarator declarator: (identifier) @name.definition.constant))
      (init_declarator declarator: (array_declarator declarator: (identifier) @name.definition.constant))
      (pointer_declarator declarator: (identifier) @name.definition.constant)
      (array_declarator declarator: (identifier) @name.definition.constant)
    ]))
(preproc_ifdef
  (declaration
    declarator: [
      (identifier) @name.definition.constant
      (init_declarator declarator: (identifier) @name.definition.constant)
      (init_declarator declarator: (pointer_declarator declarator: (identifier) @name.definition.constant))
      (init_declarator declarator: (array_declarator declarator: (identifier) @name.definition.constant))
      (pointer_declarator declarator: (identifier) @name.definition.constant)
      (array_declarator declarator: (identifier) @name.definition.constant)
    ]))
(preproc_if
  (declaration
    declarator: [
      (identifier) @name.definition.constant
      (init_declarator declarator: (identifier) @name.definition.constant)
      (init_declarator declarator: (pointer_declarator declarator: (identifier) @name.definition.constant))
      (init_declarator declarator: (array_declarator declarator: (identifier) @name.definition.constant))
      (pointer_declarator declarator: (identifier) @name.definition.constant)
      (array_declarator declarator: (identifier) @name.definition.constant)
    ]))
(preproc_else
  (declaration
    declarator: [
      (identifier) @name.definition.constant
      (init_declarator declarator: (identifier) @name.definition.constant)
      (init_declarator declarator: (pointer_declarator declarator: (identifier) @name.definition.constant))
      (init_declarator declarator: (array_declarator declarator: (identifier) @name.definition.constant))
      (pointer_declarator declarator: (identifier) @name.definition.constant)
      (array_declarator declarator: (identifier) @name.definition.constant)
    ]))
(preproc_elif
  (declaration
    declarator: [
      (identifier) @name.definition.constant
      (init_declarator declarator: (identifier) @name.definition.constant)
      (init_declarator declarator: (pointer_declarator declarator: (identifier) @name.definition.constant))
      (init_declarator declarator: (array_declarator declarator: (identifier) @name.definition.constant))
      (pointer_declarator declarator: (identifier) @name.definition.constant)
      (array_declarator declarator: (identifier) @name.definition.constant)
    ]))

; Members of structs and unions (not methods: their declarator is a function_declarator).
(field_declaration
  declarator: [
    (field_identifier) @name.definition.field
    (pointer_declarator declarator: (field_identifier) @name.definition.field)
    (pointer_declarator declarator: (pointer_declarator declarator: (field_identifier) @name.definition.field))
    (array_declarator declarator: (field_identifier) @name.definition.field)
  ])

; ---------------------------------------------------------------------------------------------
; References
; ---------------------------------------------------------------------------------------------

; Calls: f(x), and calls through a member function pointer (ops->read(x)). The C library's
; everyday functions are left out: they never resolve to a definition in the repository.
((call_expression function: (identifier) @name.reference.call)
 (#not-any-of? @name.reference.call
   "printf" "fprintf" "sprintf" "snprintf" "vprintf" "vfprintf" "vsnprintf" "puts" "fputs"
   "malloc" "calloc" "realloc" "free" "memcpy" "memmove" "memset" "memcmp" "strlen" "strcmp"
   "strncmp" "strcpy" "strncpy" "strcat" "strncat" "strchr" "strrchr" "strstr" "strdup" "atoi"
   "atol" "strtol" "strtoul" "strtod" "exit" "abort" "assert" "fopen" "fclose" "fread" "fwrite"
   "fflush"))
(call_expression function: (field_expression field: (field_identifier) @name.reference.call))

; Type uses: a typedef name, or a tagged type named without a body (struct Queue *q), in the
; type of a declaration, parameter, field, cast, sizeof, typedef or function.
(_
  type: [
    (type_identifier) @name.reference.type
    (struct_specifier !body name: (type_identifier) @name.reference.type)
    (union_specifier !body name: (type_identifier) @name.reference.type)
    (enum_specifier !body name: (type_identifier) @name.reference.type)
  ])

; ---------------------------------------------------------------------------------------------
; Scopes
; ---------------------------------------------------------------------------------------------

(function_definition) @scope
(struct_specifier body: (_)) @scope
(union_specifier body: (_)) @scope
(enum_specifier body: (_)) @scope

; ---------------------------------------------------------------------------------------------
; Modules (FileNames.modules)
; ---------------------------------------------------------------------------------------------

; #include "x.h" (not <x.h>: a system header is outside the repository).
(preproc_include path: (string_literal (string_content) @module.import))
