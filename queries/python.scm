; Python (tree-sitter-python 0.25).
;
; Ordering matters: extract.ts keeps the first tag per name node, and tree-sitter returns the
; captures of one node in pattern order. So a more specific pattern (method, decorator,
; inheritance) comes before a general one (function, call, type) matching the same node.

; ---------------------------------------------------------------------------------------------
; Definitions
; ---------------------------------------------------------------------------------------------

(class_definition name: (identifier) @name.definition.class)

; A def directly in a class body (decorated or not) is a method; any other def a function.
(class_definition
  body: (block
    [
      (function_definition name: (identifier) @name.definition.method)
      (decorated_definition definition: (function_definition name: (identifier) @name.definition.method))
    ]))
(function_definition name: (identifier) @name.definition.function)

; name = lambda ...: a function, at any level.
(assignment
  left: (identifier) @name.definition.function
  right: (lambda))

; Module-level assignments (top level only, any case): MAX = 3, log = getLogger(), x: int = 0,
; a, b = 1, 2. Assignments nested in if/try blocks are not module constants for this purpose.
(module
  (expression_statement
    (assignment
      left: [
        (identifier) @name.definition.constant
        (pattern_list (identifier) @name.definition.constant)
      ])))

; Class attributes and dataclass fields: class C: x: int = 0.
(class_definition
  body: (block
    (expression_statement
      (assignment left: (identifier) @name.definition.field))))

; type Alias = ... (Python 3.12).
(type_alias_statement left: (type (identifier) @name.definition.type))

; ---------------------------------------------------------------------------------------------
; References
; ---------------------------------------------------------------------------------------------

; Decorators: @dec, @mod.dec, @dec(...), @mod.dec(...) (before calls, which match @dec(...) too).
(decorator (identifier) @name.reference.decorator)
(decorator (attribute attribute: (identifier) @name.reference.decorator))
(decorator (call function: (identifier) @name.reference.decorator))
(decorator (call function: (attribute attribute: (identifier) @name.reference.decorator)))

; Base classes: class C(Base, mod.Base, Generic[T]). Keyword arguments (metaclass=) are not
; bases; `object` is everyone's base.
((class_definition
  superclasses: (argument_list
    [
      (identifier) @name.reference.inheritance
      (attribute attribute: (identifier) @name.reference.inheritance)
      (subscript value: (identifier) @name.reference.inheritance)
      (subscript value: (attribute attribute: (identifier) @name.reference.inheritance))
    ]))
 (#not-eq? @name.reference.inheritance "object"))

; Imports: from m import a, b as c (a and b); import a.b.c [as d] (the last part, c).
(import_from_statement name: (dotted_name (identifier) @name.reference.import))
(import_from_statement name: (aliased_import name: (dotted_name (identifier) @name.reference.import)))
(import_statement name: (dotted_name (identifier) @name.reference.import .))
(import_statement name: (aliased_import name: (dotted_name (identifier) @name.reference.import .)))

; Calls: f(), obj.method(), a.b.f(). Plain calls of common builtins are left out: they never
; resolve to a definition in the repository.
(call
  function: (identifier) @name.reference.call
  (#not-any-of? @name.reference.call
    "print" "len" "isinstance" "issubclass" "range" "super" "str" "int" "float" "bool" "bytes"
    "list" "dict" "set" "tuple" "type" "getattr" "setattr" "hasattr" "enumerate" "zip"
    "sorted" "min" "max" "sum" "any" "all" "repr" "iter" "next" "open" "abs" "round" "id"
    "callable" "vars"))
(call function: (attribute attribute: (identifier) @name.reference.call))

; Annotations: x: Foo, -> Optional[Bar], list[Baz], mod.Type, A | B; builtin types left out.
; The name in `type Alias = ...` is a `type` node too, so the parents of the `type` nodes are
; listed: annotated parameters and assignments (the `type` field), return types, the right side
; of a type alias, and type arguments (list[Foo]; nested in the generic_type of the others).
([
  (_ type: (type
    [
      (identifier) @name.reference.type
      (attribute attribute: (identifier) @name.reference.type)
      (generic_type (identifier) @name.reference.type)
      (subscript value: (identifier) @name.reference.type)
      (subscript value: (attribute attribute: (identifier) @name.reference.type))
      (subscript subscript: (identifier) @name.reference.type)
      (binary_operator [left: (identifier) right: (identifier)] @name.reference.type)
    ]))
  (function_definition return_type: (type
    [
      (identifier) @name.reference.type
      (attribute attribute: (identifier) @name.reference.type)
      (generic_type (identifier) @name.reference.type)
      (subscript value: (identifier) @name.reference.type)
      (subscript value: (attribute attribute: (identifier) @name.reference.type))
      (subscript subscript: (identifier) @name.reference.type)
      (binary_operator [left: (identifier) right: (identifier)] @name.reference.type)
    ]))
  (type_alias_statement right: (type
    [
      (identifier) @name.reference.type
      (attribute attribute: (identifier) @name.reference.type)
      (generic_type (identifier) @name.reference.type)
      (subscript value: (identifier) @name.reference.type)
      (subscript value: (attribute attribute: (identifier) @name.reference.type))
      (subscript subscript: (identifier) @name.reference.type)
      (binary_operator [left: (identifier) right: (identifier)] @name.reference.type)
    ]))
  (type_parameter (type
    [
      (identifier) @name.reference.type
      (attribute attribute: (identifier) @name.reference.type)
      (generic_type (identifier) @name.reference.type)
      (subscript value: (identifier) @name.reference.type)
      (subscript value: (attribute attribute: (identifier) @name.reference.type))
      (subscript subscript: (identifier) @name.reference.type)
      (binary_operator [left: (identifier) right: (identifier)] @name.reference.type)
    ]))
 ]
 (#not-any-of? @name.reference.type
   "int" "str" "float" "bool" "bytes" "list" "dict" "set" "tuple" "object" "type" "complex"
   "frozenset" "bytearray"))

; ---------------------------------------------------------------------------------------------
; Scopes
; ---------------------------------------------------------------------------------------------

(class_definition) @scope
(function_definition) @scope

; ---------------------------------------------------------------------------------------------
; Modules: the modules a file imports (FileNames.modules)
; ---------------------------------------------------------------------------------------------

; import a.b.c [as d] (a.b.c); from a.b import c (a.b); from . import x (.); from ..p import y (..p).
(import_statement name: (dotted_name) @module.import)
(import_statement name: (aliased_import name: (dotted_name) @module.import))
(import_from_statement module_name: (_) @module.import)
