; Go (tree-sitter-go 0.25).
;
; Ordering matters: extract.ts keeps the first tag per name node, and tree-sitter returns the
; captures of one node in pattern order. So a more specific pattern (struct, interface,
; inheritance, new) comes before a general one (type, call) matching the same node.
;
; Imports give no name reference: the only name in an import is its path ("github.com/x/y/v2"),
; and the query language cannot cut out the last component (no #strip! in tree-sitter 0.25's node
; binding); the package name is not in the importing file at all. The path is captured as a
; module (at the end).

; ---------------------------------------------------------------------------------------------
; Definitions
; ---------------------------------------------------------------------------------------------

(function_declaration name: (identifier) @name.definition.function)
(method_declaration name: (field_identifier) @name.definition.method)

; type X struct {...}, type X interface {...}, any other type X ..., and aliases (type X = Y).
(type_spec name: (type_identifier) @name.definition.struct type: (struct_type))
(type_spec name: (type_identifier) @name.definition.interface type: (interface_type))
(type_spec name: (type_identifier) @name.definition.type)
(type_alias name: (type_identifier) @name.definition.type)

; Methods declared in interfaces, and named struct fields.
(method_elem name: (field_identifier) @name.definition.method)
(field_declaration name: (field_identifier) @name.definition.field)

; A func literal bound to a name: handler := func(...) {...}, var handler = func(...) {...}.
(short_var_declaration
  left: (expression_list . (identifier) @name.definition.function .)
  right: (expression_list . (func_literal) .))
(var_spec
  .
  name: (identifier) @name.definition.function
  value: (expression_list . (func_literal)))

; Package-level const and var (not those inside functions): a var is a variable, not a constant
; (`var ErrX = errors.New(...)` can be reassigned).
(source_file (const_declaration (const_spec name: (identifier) @name.definition.constant)))
(source_file
  (var_declaration
    [
      (var_spec name: (identifier) @name.definition.variable)
      (var_spec_list (var_spec name: (identifier) @name.definition.variable))
    ]))

; ---------------------------------------------------------------------------------------------
; References
; ---------------------------------------------------------------------------------------------

; Embedding: a struct field with no name (sync.Mutex, *Stats) and an interface listing another
; interface (fmt.Stringer). A union constraint (~int | Float) has several types: not embedding.
(field_declaration
  !name
  type: [
    (type_identifier) @name.reference.inheritance
    (qualified_type name: (type_identifier) @name.reference.inheritance)
    (pointer_type (type_identifier) @name.reference.inheritance)
    (pointer_type (qualified_type name: (type_identifier) @name.reference.inheritance))
    (generic_type type: (type_identifier) @name.reference.inheritance)
  ])
(interface_type
  (type_elem
    .
    [
      (type_identifier) @name.reference.inheritance
      (qualified_type name: (type_identifier) @name.reference.inheritance)
    ]
    .))

; Construction: composite literals (Shard{...}, pkg.Config{...}, List[T]{...}) and new(T).
(composite_literal
  type: [
    (type_identifier) @name.reference.new
    (qualified_type name: (type_identifier) @name.reference.new)
    (generic_type type: (type_identifier) @name.reference.new)
  ])
(call_expression
  function: (identifier) @_new
  arguments: (argument_list
    .
    [
      (type_identifier) @name.reference.new
      (qualified_type name: (type_identifier) @name.reference.new)
    ])
  (#eq? @_new "new"))

; Calls: f(), pkg.Func(), x.Method(). Builtins and conversions to predeclared types are left
; out: they never resolve to a definition in the repository.
(call_expression
  function: (identifier) @name.reference.call
  (#not-any-of? @name.reference.call
    "append" "cap" "clear" "close" "complex" "copy" "delete" "imag" "len" "make" "max" "min"
    "new" "panic" "print" "println" "real" "recover"
    "bool" "byte" "complex64" "complex128" "error" "float32" "float64" "int" "int8" "int16"
    "int32" "int64" "rune" "string" "uint" "uint8" "uint16" "uint32" "uint64" "uintptr"))
(call_expression function: (selector_expression field: (field_identifier) @name.reference.call))

; Type references: every type_identifier in a type position (declared names sit in the `name`
; field of type_spec and type_alias and are not matched). Predeclared types are left out.
([
  (_
    [
      type: (type_identifier) @name.reference.type
      result: (type_identifier) @name.reference.type
      element: (type_identifier) @name.reference.type
      key: (type_identifier) @name.reference.type
      value: (type_identifier) @name.reference.type
    ])
  (qualified_type name: (type_identifier) @name.reference.type)
  (pointer_type (type_identifier) @name.reference.type)
  (type_elem (type_identifier) @name.reference.type)
  (type_constraint (type_identifier) @name.reference.type)
  (parenthesized_type (type_identifier) @name.reference.type)
  (negated_type (type_identifier) @name.reference.type)
 ]
 (#not-any-of? @name.reference.type
   "any" "bool" "byte" "comparable" "complex64" "complex128" "error" "float32" "float64" "int"
   "int8" "int16" "int32" "int64" "rune" "string" "uint" "uint8" "uint16" "uint32" "uint64"
   "uintptr"))

; ---------------------------------------------------------------------------------------------
; Scopes
; ---------------------------------------------------------------------------------------------

(function_declaration) @scope
(method_declaration) @scope
; type_spec rather than type_declaration: in a group, type ( A struct{...}; B ... ), each spec
; has its own header line.
(type_spec) @scope
; A func literal bound to a name, like the function definitions above.
(short_var_declaration right: (expression_list . (func_literal) .)) @scope
(var_spec value: (expression_list . (func_literal))) @scope

; ---------------------------------------------------------------------------------------------
; Modules: the import paths (FileNames.modules)
; ---------------------------------------------------------------------------------------------

(import_spec path: (interpreted_string_literal (interpreted_string_literal_content) @module.import))
(import_spec path: (raw_string_literal (raw_string_literal_content) @module.import))
