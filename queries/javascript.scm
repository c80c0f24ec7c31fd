; JavaScript (tree-sitter-javascript 0.25), on top of ecma.scm.

; ---------------------------------------------------------------------------------------------
; Definitions
; ---------------------------------------------------------------------------------------------

; Class fields: a function value makes a method (onClick = () => ...), anything else a field.
(field_definition
  property: [(property_identifier) (private_property_identifier)] @name.definition.method
  value: [(arrow_function) (function_expression) (generator_function)])
(field_definition
  property: [(property_identifier) (private_property_identifier)] @name.definition.field
  !value)
(field_definition
  property: [(property_identifier) (private_property_identifier)] @name.definition.field
  value: [
    (number) (string) (template_string) (regex) (true) (false) (null) (undefined)
    (object) (array) (identifier) (member_expression) (subscript_expression)
    (call_expression) (new_expression) (await_expression) (binary_expression)
    (unary_expression) (ternary_expression) (parenthesized_expression)
  ])

; ---------------------------------------------------------------------------------------------
; References
; ---------------------------------------------------------------------------------------------

; class A extends B, class A extends ns.B (JS has no extends_clause node, unlike TS).
(class_heritage (identifier) @name.reference.inheritance)
(class_heritage (member_expression property: (property_identifier) @name.reference.inheritance))

; ---------------------------------------------------------------------------------------------
; Scopes
; ---------------------------------------------------------------------------------------------

; A decorated method starts at its decorator; its body's first line is the `name() {` line.
(method_definition decorator: (_) body: (statement_block) @scope)
; Class field holding a function: onClick = (e) => { ... }.
(field_definition
  !decorator
  value: [(arrow_function) (function_expression) (generator_function)]) @scope
(field_definition
  decorator: (_)
  value: [(arrow_function) (function_expression) (generator_function)] @scope)
