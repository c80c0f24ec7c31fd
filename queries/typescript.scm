; TypeScript and TSX (tree-sitter-typescript 0.23), on top of ecma.scm.

; ---------------------------------------------------------------------------------------------
; Definitions
; ---------------------------------------------------------------------------------------------

(abstract_class_declaration name: (type_identifier) @name.definition.class)
(interface_declaration name: (type_identifier) @name.definition.interface)
(type_alias_declaration name: (type_identifier) @name.definition.type)
(enum_declaration name: (identifier) @name.definition.enum)

; namespace Foo {}, module Foo {}, declare module 'pkg' {} (named by the string's content).
(internal_module name: [(identifier) (nested_identifier)] @name.definition.module)
(module name: [(identifier) (nested_identifier)] @name.definition.module)
(module name: (string (string_fragment) @name.definition.module))

; Overload and ambient signatures: function f(a: string): void; declare function g(): void.
(function_signature name: (identifier) @name.definition.function)

; Abstract methods, overload signatures in classes and method signatures in interfaces.
(abstract_method_signature
  name: [(property_identifier) (private_property_identifier)] @name.definition.method)
(class_body
  (method_signature
    name: [(property_identifier) (private_property_identifier)] @name.definition.method))

; Class fields: a function value makes a method (onClick = () => ...), anything else a field.
(public_field_definition
  name: [(property_identifier) (private_property_identifier)] @name.definition.method
  value: [(arrow_function) (function_expression) (generator_function)])
(public_field_definition
  name: [(property_identifier) (private_property_identifier)] @name.definition.field
  !value)
(public_field_definition
  name: [(property_identifier) (private_property_identifier)] @name.definition.field
  value: [
    (number) (string) (template_string) (regex) (true) (false) (null) (undefined)
    (object) (array) (identifier) (member_expression) (subscript_expression)
    (call_expression) (new_expression) (await_expression) (binary_expression)
    (unary_expression) (ternary_expression) (parenthesized_expression)
    (as_expression) (satisfies_expression) (non_null_expression)
  ])
; Members of interfaces and of object types given a name (type Props = { ... }). Object types
; written inline (a parameter's { dark: boolean }) define nothing anyone refers to by name.
([
  (interface_body
    [
      (method_signature
        name: [(property_identifier) (private_property_identifier)] @name.definition.method)
      (property_signature
        name: [(property_identifier) (private_property_identifier)] @name.definition.field)
    ])
  (type_alias_declaration
    value: (object_type
      [
        (method_signature
          name: [(property_identifier) (private_property_identifier)] @name.definition.method)
        (property_signature
          name: [(property_identifier) (private_property_identifier)] @name.definition.field)
      ]))
 ])

; Top-level constants whose value only TS can write: const X = {...} as const, satisfies T, y!.
; (Not the <T>x assertion: the TSX grammar has no type_assertion node.)
(program
  [
    (lexical_declaration
      kind: "const"
      (variable_declarator
        name: (identifier) @name.definition.constant
        value: [(as_expression) (satisfies_expression) (non_null_expression)]))
    (export_statement
      declaration: (lexical_declaration
        kind: "const"
        (variable_declarator
          name: (identifier) @name.definition.constant
          value: [(as_expression) (satisfies_expression) (non_null_expression)])))
  ])

; ---------------------------------------------------------------------------------------------
; References
; ---------------------------------------------------------------------------------------------

; Inheritance (before the type references, which would also match generic_type names here):
; class A extends B<T> implements C, D<E>; interface I extends J, K<L>.
(extends_clause value: (identifier) @name.reference.inheritance)
(extends_clause value: (member_expression property: (property_identifier) @name.reference.inheritance))
(implements_clause (type_identifier) @name.reference.inheritance)
(implements_clause (generic_type name: (type_identifier) @name.reference.inheritance))
(implements_clause (nested_type_identifier name: (type_identifier) @name.reference.inheritance))
(extends_type_clause type: (type_identifier) @name.reference.inheritance)
(extends_type_clause type: (generic_type name: (type_identifier) @name.reference.inheritance))
(extends_type_clause type: (nested_type_identifier name: (type_identifier) @name.reference.inheritance))

; Type references. A type_identifier is also the name of a class, interface, type alias or type
; parameter; listing the parents where it is a use (instead of matching every type_identifier)
; keeps declared names out of the references.
[
  (type_annotation (type_identifier) @name.reference.type)
  (type_arguments (type_identifier) @name.reference.type)
  (generic_type name: (type_identifier) @name.reference.type)
  (nested_type_identifier name: (type_identifier) @name.reference.type)
  (array_type (type_identifier) @name.reference.type)
  (union_type (type_identifier) @name.reference.type)
  (intersection_type (type_identifier) @name.reference.type)
  (tuple_type (type_identifier) @name.reference.type)
  (optional_type (type_identifier) @name.reference.type)
  (rest_type (type_identifier) @name.reference.type)
  (readonly_type (type_identifier) @name.reference.type)
  (parenthesized_type (type_identifier) @name.reference.type)
  (lookup_type (type_identifier) @name.reference.type)
  (index_type_query (type_identifier) @name.reference.type)
  (conditional_type (type_identifier) @name.reference.type)
  (function_type return_type: (type_identifier) @name.reference.type)
  (constructor_type type: (type_identifier) @name.reference.type)
  (type_predicate type: (type_identifier) @name.reference.type)
  (constraint (type_identifier) @name.reference.type)
  (default_type (type_identifier) @name.reference.type)
  (mapped_type_clause type: (type_identifier) @name.reference.type)
  (index_signature index_type: (type_identifier) @name.reference.type)
  (type_alias_declaration value: (type_identifier) @name.reference.type)
  (as_expression (type_identifier) @name.reference.type)
  (satisfies_expression (type_identifier) @name.reference.type)
  (omitting_type_annotation (type_identifier) @name.reference.type)
  (opting_type_annotation (type_identifier) @name.reference.type)
  (adding_type_annotation (type_identifier) @name.reference.type)
]

; ---------------------------------------------------------------------------------------------
; Scopes
; ---------------------------------------------------------------------------------------------

(abstract_class_declaration !decorator) @scope
(abstract_class_declaration decorator: (_) body: (class_body) @scope)
(interface_declaration) @scope
(enum_declaration) @scope
(internal_module) @scope
(module) @scope
; Class field holding a function: onClick = (e) => { ... }.
(public_field_definition
  !decorator
  value: [(arrow_function) (function_expression) (generator_function)]) @scope
(public_field_definition
  decorator: (_)
  value: [(arrow_function) (function_expression) (generator_function)] @scope)

; ---------------------------------------------------------------------------------------------
; Modules (see ecma.scm)
; ---------------------------------------------------------------------------------------------

; import fs = require('fs').
(import_require_clause source: (string (string_fragment) @module.import))
