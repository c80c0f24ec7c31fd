; OCaml (tree-sitter-ocaml 0.24, its `ocaml` grammar: .ml files).
;
; Ordering matters: extract.ts keeps the first tag per name node, and tree-sitter returns the
; captures of one node in pattern order. So a more specific pattern (a function, a record type)
; comes before a general one (a constant, a type) matching the same node.
;
; Only the definitions of a file's top level and of its modules' structures are captured: a
; `let ... in` inside an expression is local.

; ---------------------------------------------------------------------------------------------
; Definitions
; ---------------------------------------------------------------------------------------------

; let f x = ... and let f = fun x -> ... are functions; let x = ... a constant.
(compilation_unit
  (value_definition
    (let_binding pattern: (value_name) @name.definition.function (parameter))))
(structure
  (value_definition
    (let_binding pattern: (value_name) @name.definition.function (parameter))))
(compilation_unit
  (value_definition
    (let_binding
      pattern: (value_name) @name.definition.function
      body: [(fun_expression) (function_expression)])))
(structure
  (value_definition
    (let_binding
      pattern: (value_name) @name.definition.function
      body: [(fun_expression) (function_expression)])))
(compilation_unit
  (value_definition (let_binding pattern: (value_name) @name.definition.constant)))
(structure
  (value_definition (let_binding pattern: (value_name) @name.definition.constant)))
(external (value_name) @name.definition.function)
; val f : ... in a signature.
(value_specification (value_name) @name.definition.function)

; Types: records are structs, variants enums, the rest types; their constructors and fields.
(type_binding name: (type_constructor) @name.definition.struct body: (record_declaration))
(type_binding name: (type_constructor) @name.definition.enum body: (variant_declaration))
(type_binding name: (type_constructor) @name.definition.type)
(constructor_declaration (constructor_name) @name.definition.constant)
(field_declaration (field_name) @name.definition.field)

; Modules, module types (signatures), classes and their members.
(module_binding (module_name) @name.definition.module)
(module_type_definition (module_type_name) @name.definition.interface)
(class_binding (class_name) @name.definition.class)
(class_type_binding (class_type_name) @name.definition.interface)
(method_definition (method_name) @name.definition.method)
(method_specification (method_name) @name.definition.method)
(instance_variable_definition (instance_variable_name) @name.definition.field)

; ---------------------------------------------------------------------------------------------
; References
; ---------------------------------------------------------------------------------------------

; open M, open A.B, and module aliases (module P = A.B): the module named (its last part).
(open_module module: (module_path (module_name) @name.reference.import))
(module_binding body: (module_path (module_name) @name.reference.import))

; include M takes another module's contents; module X : SIG implements a signature; inherit c.
(include_module module: (module_path (module_name) @name.reference.inheritance))
(module_binding module_type: (module_type_path (module_type_name) @name.reference.inheritance))
(inheritance_definition (class_path (class_name) @name.reference.inheritance))

; Construction: a constructor applied (Out_of_stock sku), new c. The option and result
; constructors are left out.
((application_expression function: (constructor_path (constructor_name) @name.reference.new))
 (#not-any-of? @name.reference.new "Some" "None" "Ok" "Error"))
(new_expression (class_path (class_name) @name.reference.new))

; Calls: f x, M.f x, x |> f. Stdlib's everyday functions and modules are left out: they never
; resolve to a definition in the repository.
((application_expression function: (value_path . (value_name) @name.reference.call))
 (#not-any-of? @name.reference.call
   "raise" "ignore" "failwith" "invalid_arg" "print_endline" "print_string" "prerr_endline"
   "not" "fst" "snd" "ref" "incr" "decr" "string_of_int" "int_of_string" "float_of_int"
   "string_of_float" "compare" "min" "max"))
((application_expression
  function: (value_path (module_path (module_name) @_module) (value_name) @name.reference.call))
 (#not-any-of? @_module
   "List" "Array" "String" "Bytes" "Printf" "Format" "Hashtbl" "Option" "Result" "Seq" "Map"
   "Set" "Buffer" "Char" "Int" "Float" "Fun" "Stdlib" "Sys" "Filename" "Lazy" "Queue" "Stack"))
(infix_expression
  operator: (rel_operator) @_pipe
  right: (value_path (value_name) @name.reference.call)
  (#eq? @_pipe "|>"))
(method_invocation (method_name) @name.reference.call)

; Types named: t, M.t, item list (the named part, without a module path's modules), module
; types used as functor parameter types. Builtin types are left out.
((type_constructor_path (type_constructor) @name.reference.type)
 (#not-any-of? @name.reference.type
   "int" "float" "string" "bool" "unit" "char" "bytes" "list" "option" "array" "exn" "ref"
   "result" "int32" "int64"))
(module_type_path (module_type_name) @name.reference.type)

; ---------------------------------------------------------------------------------------------
; Scopes
; ---------------------------------------------------------------------------------------------

(module_binding) @scope
(module_type_definition) @scope
(class_binding) @scope
(type_definition) @scope
