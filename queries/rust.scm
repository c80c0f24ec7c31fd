; Rust (tree-sitter-rust 0.24).
;
; Ordering matters: extract.ts keeps the first tag per name node, and tree-sitter returns the
; captures of one node in pattern order. So a more specific pattern (method, inheritance) comes
; before a general one (function, type) matching the same node.

; ---------------------------------------------------------------------------------------------
; Definitions
; ---------------------------------------------------------------------------------------------

(struct_item name: (type_identifier) @name.definition.struct)
(union_item name: (type_identifier) @name.definition.struct)
(enum_item name: (type_identifier) @name.definition.enum)
(trait_item name: (type_identifier) @name.definition.trait)
; Type aliases at module level. `type Item = ...` in an impl body only fills in a trait's
; associated type (declared once, in the trait, below): not a definition of its own.
(source_file (type_item name: (type_identifier) @name.definition.type))
(mod_item body: (declaration_list (type_item name: (type_identifier) @name.definition.type)))
(mod_item name: (identifier) @name.definition.module)
(macro_definition name: (identifier) @name.definition.macro)

; Functions in impl and trait bodies are methods (including required trait methods, which
; have no body); all others are functions.
(impl_item
  body: (declaration_list (function_item name: (identifier) @name.definition.method)))
(trait_item
  body: (declaration_list
    [
      (function_item name: (identifier) @name.definition.method)
      (function_signature_item name: (identifier) @name.definition.method)
    ]))
(function_item name: (identifier) @name.definition.function)
; extern "C" { fn f(); }
(function_signature_item name: (identifier) @name.definition.function)

; Associated types of traits: type Output;
(associated_type name: (type_identifier) @name.definition.type)

; const and static items, also associated consts in impls and traits.
(const_item name: (identifier) @name.definition.constant)
(static_item name: (identifier) @name.definition.constant)

; Named struct and union fields.
(field_declaration name: (field_identifier) @name.definition.field)

; ---------------------------------------------------------------------------------------------
; References
; ---------------------------------------------------------------------------------------------

; impl Trait for Type: both the trait and the type (plain, generic or path-qualified).
(impl_item
  trait: [
    (type_identifier) @name.reference.inheritance
    (scoped_type_identifier name: (type_identifier) @name.reference.inheritance)
    (generic_type type: (type_identifier) @name.reference.inheritance)
    (generic_type type: (scoped_type_identifier name: (type_identifier) @name.reference.inheritance))
  ]
  type: [
    (type_identifier) @name.reference.inheritance
    (scoped_type_identifier name: (type_identifier) @name.reference.inheritance)
    (generic_type type: (type_identifier) @name.reference.inheritance)
    (generic_type type: (scoped_type_identifier name: (type_identifier) @name.reference.inheritance))
  ])
; Supertraits: trait Limiter: Send + Sync.
(trait_item
  bounds: (trait_bounds
    [
      (type_identifier) @name.reference.inheritance
      (scoped_type_identifier name: (type_identifier) @name.reference.inheritance)
      (generic_type type: (type_identifier) @name.reference.inheritance)
    ]))

; #[derive(Debug, Clone)]: the derived traits, as decorators.
(attribute_item
  (attribute
    (identifier) @_attr
    arguments: (token_tree (identifier) @name.reference.decorator))
  (#eq? @_attr "derive"))

; use a::b::{C, d as e}; use a::b; use a::B as C: the imported names (C, d, b, B).
(use_declaration argument: (identifier) @name.reference.import)
(use_declaration argument: (scoped_identifier name: (identifier) @name.reference.import))
(use_as_clause path: (identifier) @name.reference.import)
(use_as_clause path: (scoped_identifier name: (identifier) @name.reference.import))
(use_list (identifier) @name.reference.import)
(use_list (scoped_identifier name: (identifier) @name.reference.import))

; Struct literals construct a value: TokenBucket { .. }, bucket::TokenBucket { .. }.
(struct_expression name: (type_identifier) @name.reference.new)
(struct_expression name: (scoped_type_identifier name: (type_identifier) @name.reference.new))

; Calls: f(), x.method(), Type::func(), module::func(), f::<T>(), and macro invocations.
(call_expression function: (identifier) @name.reference.call)
(call_expression function: (field_expression field: (field_identifier) @name.reference.call))
(call_expression function: (scoped_identifier name: (identifier) @name.reference.call))
(call_expression
  function: (generic_function
    function: [
      (identifier) @name.reference.call
      (field_expression field: (field_identifier) @name.reference.call)
      (scoped_identifier name: (identifier) @name.reference.call)
    ]))
(macro_invocation macro: (identifier) @name.reference.call)
(macro_invocation macro: (scoped_identifier name: (identifier) @name.reference.call))
; Macro arguments stay unparsed token trees; in them an identifier directly followed by a
; parenthesised group is a call: assert!(is_valid(x)), println!("{}", x.len()), inner!(..).
(token_tree
  (identifier) @name.reference.call
  .
  (token_tree) @_args
  (#match? @_args "^\\("))

; Type references: every type_identifier in a type position. Declared names (struct, enum,
; trait, type alias, type parameter, associated type) sit in `name` fields and are not matched.
; `Self` is left out: it never names a definition.
((_
  [
    type: (type_identifier) @name.reference.type
    return_type: (type_identifier) @name.reference.type
    trait: (type_identifier) @name.reference.type
    element: (type_identifier) @name.reference.type
    default_type: (type_identifier) @name.reference.type
  ])
  (#not-eq? @name.reference.type "Self"))
((scoped_type_identifier name: (type_identifier) @name.reference.type)
  (#not-eq? @name.reference.type "Self"))
([
  (type_arguments (type_identifier) @name.reference.type)
  (tuple_type (type_identifier) @name.reference.type)
  (trait_bounds (type_identifier) @name.reference.type)
  (bounded_type (type_identifier) @name.reference.type)
  (where_predicate left: (type_identifier) @name.reference.type)
 ]
 (#not-eq? @name.reference.type "Self"))

; ---------------------------------------------------------------------------------------------
; Scopes
; ---------------------------------------------------------------------------------------------

(impl_item) @scope
(trait_item) @scope
(mod_item) @scope
(function_item) @scope
(struct_item) @scope
(enum_item) @scope
(union_item) @scope

; ---------------------------------------------------------------------------------------------
; Modules (FileNames.modules)
; ---------------------------------------------------------------------------------------------

; mod a; (a module in a file of its own; `mod a { ... }` is in this file).
(mod_item !body name: (identifier) @module.declare)
; use crate::a::{B, c::D}; use super::x::Y; the whole argument as written: src/resolve/rust.ts
; reads the tree of paths out of it.
(use_declaration argument: (_) @module.import)
