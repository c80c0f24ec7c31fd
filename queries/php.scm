; PHP (tree-sitter-php 0.24, its `php` grammar: whole files, HTML around the PHP included).
;
; Ordering matters: extract.ts keeps the first tag per name node, and tree-sitter returns the
; captures of one node in pattern order. So a more specific pattern comes before a general one
; matching the same node.
;
; `self`, `static` and `parent` are left out of the references: they name the class at hand.

; ---------------------------------------------------------------------------------------------
; Definitions
; ---------------------------------------------------------------------------------------------

(class_declaration name: (name) @name.definition.class)
(interface_declaration name: (name) @name.definition.interface)
(trait_declaration name: (name) @name.definition.trait)
(enum_declaration name: (name) @name.definition.enum)

; namespace App\Billing; or namespace App\Billing { ... } (the innermost name).
(namespace_definition name: (namespace_name (name) @name.definition.module .))

(function_definition name: (name) @name.definition.function)
(method_declaration name: (name) @name.definition.method)

; Constants: const X = ... (file or class level), enum cases, define('X', ...).
(const_element (name) @name.definition.constant)
(enum_case name: (name) @name.definition.constant)
((function_call_expression
  function: (name) @_define
  arguments: (arguments . (argument (string (string_content) @name.definition.constant))))
 (#eq? @_define "define"))

; Properties, and constructor parameters promoted to properties (named without the $).
(property_element name: (variable_name (name) @name.definition.field))
(property_promotion_parameter name: (variable_name (name) @name.definition.field))

; ---------------------------------------------------------------------------------------------
; References
; ---------------------------------------------------------------------------------------------

; use A\B\C; use A\B\{C, D as E}; use function A\f; (the imported name, not its alias).
(namespace_use_clause
  .
  [
    (name) @name.reference.import
    (qualified_name (name) @name.reference.import .)
  ])

; Attributes: #[Entity], #[ORM\Table(...)].
(attribute
  [
    (name) @name.reference.decorator
    (qualified_name (name) @name.reference.decorator .)
  ])

; extends, implements, and traits used in a class body.
(base_clause
  [
    (name) @name.reference.inheritance
    (qualified_name (name) @name.reference.inheritance .)
  ])
(class_interface_clause
  [
    (name) @name.reference.inheritance
    (qualified_name (name) @name.reference.inheritance .)
  ])
(use_declaration
  [
    (name) @name.reference.inheritance
    (qualified_name (name) @name.reference.inheritance .)
  ])

; Construction: new Foo(), new \App\Foo().
((object_creation_expression
  [
    (name) @name.reference.new
    (qualified_name (name) @name.reference.new .)
  ])
 (#not-any-of? @name.reference.new "self" "static" "parent"))

; Calls: f(), \App\f(), $obj->f(), $obj?->f(), Foo::f(). The everyday functions of PHP's
; standard library are left out: they never resolve to a definition in the repository.
((function_call_expression
  function: [
    (name) @name.reference.call
    (qualified_name (name) @name.reference.call .)
  ])
 (#not-any-of? @name.reference.call
   "define" "array_map" "array_filter" "array_keys" "array_values" "array_merge" "array_sum"
   "array_key_exists" "in_array" "count" "sprintf" "printf" "implode" "explode" "strlen"
   "str_replace" "substr" "strtolower" "strtoupper" "ucfirst" "trim" "is_array" "is_string"
   "is_int" "is_null" "isset" "empty" "json_encode" "json_decode" "var_dump" "print_r"))
(member_call_expression name: (name) @name.reference.call)
(nullsafe_member_call_expression name: (name) @name.reference.call)
(scoped_call_expression name: (name) @name.reference.call)

; Classes used by name: in types (parameters, returns, properties; nullable, union and
; intersection types included), as the scope of a static call or constant (Money::of,
; Status::Open), and in instanceof and catch.
([
  (named_type (name) @name.reference.type)
  (named_type (qualified_name (name) @name.reference.type .))
  (scoped_call_expression scope: (name) @name.reference.type)
  (scoped_call_expression scope: (qualified_name (name) @name.reference.type .))
  (class_constant_access_expression . (name) @name.reference.type)
  (class_constant_access_expression . (qualified_name (name) @name.reference.type .))
  (binary_expression operator: "instanceof" right: (name) @name.reference.type)
  (catch_clause type: (type_list (named_type (name) @name.reference.type)))
 ]
 (#not-any-of? @name.reference.type "self" "static" "parent"))

; ---------------------------------------------------------------------------------------------
; Scopes
; ---------------------------------------------------------------------------------------------

; A declaration with attributes starts at its first #[...] line, not its header: only those
; without attributes are scopes (no node starts at the header line and spans the body, and the
; body's first line is often a lone `{`).
(namespace_definition body: (_)) @scope
(class_declaration !attributes) @scope
(interface_declaration !attributes) @scope
(trait_declaration !attributes) @scope
(enum_declaration !attributes) @scope
(function_definition !attributes) @scope
(method_declaration !attributes) @scope

; ---------------------------------------------------------------------------------------------
; Modules (FileNames.modules)
; ---------------------------------------------------------------------------------------------

; use A\B\C; use function A\f; (each clause of a plain use).
(namespace_use_declaration
  !body
  (namespace_use_clause . [(qualified_name) (name)] @module.import))
; use A\B\{C, D as E}; the clauses do not carry the prefix, so the whole statement is captured
; (module.statement drops its `use` keyword).
(namespace_use_declaration body: (_)) @module.statement
; require 'x.php'; include('x.php'); require_once __DIR__ . '/x.php' (relative: module.relative).
([
  (require_expression [(string) (encapsed_string)] @module.import)
  (require_once_expression [(string) (encapsed_string)] @module.import)
  (include_expression [(string) (encapsed_string)] @module.import)
  (include_once_expression [(string) (encapsed_string)] @module.import)
  (require_expression (parenthesized_expression [(string) (encapsed_string)] @module.import))
  (require_once_expression (parenthesized_expression [(string) (encapsed_string)] @module.import))
  (include_expression (parenthesized_expression [(string) (encapsed_string)] @module.import))
  (include_once_expression (parenthesized_expression [(string) (encapsed_string)] @module.import))
 ])
([
  (require_expression (binary_expression left: (name) @_dir operator: "." right: [(string) (encapsed_string)] @module.relative))
  (require_once_expression (binary_expression left: (name) @_dir operator: "." right: [(string) (encapsed_string)] @module.relative))
  (include_expression (binary_expression left: (name) @_dir operator: "." right: [(string) (encapsed_string)] @module.relative))
  (include_once_expression (binary_expression left: (name) @_dir operator: "." right: [(string) (encapsed_string)] @module.relative))
 ]
 (#eq? @_dir "__DIR__"))
