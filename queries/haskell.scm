; Haskell (tree-sitter-haskell 0.23).
;
; Ordering matters: extract.ts keeps the first tag per name node, and tree-sitter returns the
; captures of one node in pattern order. So a more specific pattern comes before a general one
; matching the same node.
;
; A function is defined by its type signature (the line a map should show; one per function,
; where equations come several to a function). Functions and values written without a
; signature, and local `where`/`let` bindings, are not captured.

; ---------------------------------------------------------------------------------------------
; Definitions
; ---------------------------------------------------------------------------------------------

; A module is named whole (Shop.Inventory), as imports name it: the query language cannot cut
; out the last part (and this grammar's dotted names do not take the `.` anchor reliably).
(header module: (module) @name.definition.module)

(data_type name: (name) @name.definition.struct)
(newtype name: (name) @name.definition.struct)
(type_synomym name: (name) @name.definition.type)
(type_family name: (name) @name.definition.type)
(class name: (name) @name.definition.interface)

; Constructors (Open | Closed, Item {..}, GADT constructors) and record fields.
(data_constructor
  constructor: [
    (prefix name: (constructor) @name.definition.constant)
    (record name: (constructor) @name.definition.constant)
    (infix operator: (constructor_operator) @name.definition.constant)
  ])
(gadt_constructor name: (constructor) @name.definition.constant)
(newtype_constructor name: (constructor) @name.definition.constant)
(field name: (field_name (variable) @name.definition.field))

; Signatures: in a class they declare its methods; at the top, functions and values.
(class_declarations (signature name: [(variable) (prefix_id)] @name.definition.method))
(declarations (signature name: [(variable) (prefix_id)] @name.definition.function))

; ---------------------------------------------------------------------------------------------
; References
; ---------------------------------------------------------------------------------------------

; import M (a, B(..)): the names; import M and import M hiding (...): the module.
(import names: (import_list (import_name [(variable) (name)] @name.reference.import)))
(import !names module: (module) @name.reference.import)
(import module: (module) @name.reference.import "hiding")

; instance C T: T implements the class C.
(instance name: (name) @name.reference.inheritance)
(instance name: (qualified id: (name) @name.reference.inheritance))
(instance patterns: (type_patterns (name) @name.reference.type))

; Applications: f x, M.f x, x `f` y; a constructor applied is a construction.
(apply function: (constructor) @name.reference.new)
(apply function: (qualified id: (constructor) @name.reference.new))
((apply function: [(variable) @name.reference.call (qualified id: (variable) @name.reference.call)])
 (#not-any-of? @name.reference.call
   "map" "filter" "foldr" "foldl" "foldl'" "sum" "product" "length" "null" "show" "print"
   "return" "pure" "fmap" "mapM" "mapM_" "forM" "forM_" "traverse" "sequence" "when" "unless"
   "error" "not" "fst" "snd" "id" "const" "concat" "concatMap" "zip" "zipWith" "lookup" "elem"
   "fromIntegral" "realToFrac" "putStrLn" "putStr" "head" "tail" "reverse" "maybe" "either"
   "take" "drop" "replicate" "max" "min" "abs" "negate" "div" "mod" "fromMaybe" "undefined"))
(infix operator: (infix_id [(variable) @name.reference.call (qualified id: (variable) @name.reference.call)]))

; Types named in signatures, fields, constructors and synonyms: Foo, M.Foo, Maybe Foo, [Foo],
; (Foo, Bar), class constraints. Declared names are in `name:` fields and are not matched.
; The Prelude's everyday types are left out.
(([
  (signature type: (name) @name.reference.type)
  (function [parameter: (name) result: (name)] @name.reference.type)
  (apply [constructor: (name) argument: (name)] @name.reference.type)
  (list element: (name) @name.reference.type)
  (tuple element: (name) @name.reference.type)
  (parens type: (name) @name.reference.type)
  (field type: (name) @name.reference.type)
  (strict_field type: (name) @name.reference.type)
  (prefix field: (name) @name.reference.type)
  (type_synomym type: (name) @name.reference.type)
  (qualified id: (name) @name.reference.type)
 ])
 (#not-any-of? @name.reference.type
   "Int" "Integer" "Double" "Float" "Bool" "Char" "String" "IO" "Maybe" "Either" "Word"
   "Ordering" "Show" "Eq" "Ord" "Num" "Functor" "Monad" "Applicative"))

; ---------------------------------------------------------------------------------------------
; Scopes
; ---------------------------------------------------------------------------------------------

(class) @scope
(instance) @scope
(data_type) @scope
(newtype) @scope
