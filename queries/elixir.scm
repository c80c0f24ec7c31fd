; Elixir (tree-sitter-elixir 0.3). Everything is a call in this grammar: defmodule, def, alias
; are calls whose target is an identifier, told apart by predicates.
;
; Ordering matters: extract.ts keeps the first tag per name node, and tree-sitter returns the
; captures of one node in pattern order. So a more specific pattern comes before a general one
; matching the same node.
;
; Module names are kept whole, as written: defmodule Shop.Billing defines `Shop.Billing`, which
; `alias Shop.Billing` (an import) refers to; the query language cannot cut out the last part.

; ---------------------------------------------------------------------------------------------
; Definitions
; ---------------------------------------------------------------------------------------------

((call target: (identifier) @_keyword (arguments . (alias) @name.definition.module))
 (#eq? @_keyword "defmodule"))
((call target: (identifier) @_keyword (arguments . (alias) @name.definition.interface))
 (#eq? @_keyword "defprotocol"))

; def name(args), def name(args) when guard, def name, do: ...; defp alike; macros and guards.
((call
  target: (identifier) @_keyword
  (arguments
    .
    [
      (call target: (identifier) @name.definition.function)
      (binary_operator left: (call target: (identifier) @name.definition.function) operator: "when")
      (identifier) @name.definition.function
    ]))
 (#any-of? @_keyword "def" "defp" "defdelegate"))
((call
  target: (identifier) @_keyword
  (arguments
    .
    [
      (call target: (identifier) @name.definition.macro)
      (binary_operator left: (call target: (identifier) @name.definition.macro) operator: "when")
      (identifier) @name.definition.macro
    ]))
 (#any-of? @_keyword "defmacro" "defmacrop" "defguard" "defguardp"))

; @type t :: ..., @typep, @opaque (with or without parameters).
((unary_operator
  operator: "@"
  operand: (call
    target: (identifier) @_keyword
    (arguments
      (binary_operator
        left: [
          (identifier) @name.definition.type
          (call target: (identifier) @name.definition.type)
        ]
        operator: "::"))))
 (#any-of? @_keyword "type" "typep" "opaque"))

; @callback name(args) :: result: a function every implementation of the behaviour defines.
((unary_operator
  operator: "@"
  operand: (call
    target: (identifier) @_keyword
    (arguments
      (binary_operator
        left: (call target: (identifier) @name.definition.method)
        operator: "::"))))
 (#any-of? @_keyword "callback" "macrocallback"))

; Module attributes holding values: @tax_rate 0.2 (not the documentation and typespec ones).
((unary_operator
  operator: "@"
  operand: (call target: (identifier) @name.definition.constant (arguments)))
 (#not-any-of? @name.definition.constant
   "moduledoc" "doc" "typedoc" "spec" "type" "typep" "opaque" "callback" "macrocallback"
   "behaviour" "impl" "derive" "enforce_keys" "before_compile" "after_compile" "on_load"
   "compile" "deprecated" "dialyzer" "external_resource" "optional_callbacks" "on_definition"))

; ---------------------------------------------------------------------------------------------
; References
; ---------------------------------------------------------------------------------------------

; use Mod and @behaviour Mod take another module's code or contract; defimpl Proto, for: T
; implements a protocol.
((call target: (identifier) @_keyword (arguments . (alias) @name.reference.inheritance))
 (#any-of? @_keyword "use" "defimpl"))
((unary_operator
  operator: "@"
  operand: (call target: (identifier) @_keyword (arguments . (alias) @name.reference.inheritance)))
 (#eq? @_keyword "behaviour"))

; alias A.B, alias A.{B, C}, import A.B, require A.B.
((call
  target: (identifier) @_keyword
  (arguments
    .
    [
      (alias) @name.reference.import
      (dot right: (tuple (alias) @name.reference.import))
    ]))
 (#any-of? @_keyword "alias" "import" "require"))

; Structs: %Receipt{...}.
(struct (alias) @name.reference.new)

; Local calls, f(x) and x |> f(), where code goes: statements of a do block or clause body,
; arguments (not the head of a def), operands (not a def head before `when`, not a typespec
; around `::`), keyword values, elements of lists and tuples, interpolations. The language's own
; forms and common typespec names are left out.
(([
  (do_block (call target: (identifier) @name.reference.call))
  (body (call target: (identifier) @name.reference.call))
  (block (call target: (identifier) @name.reference.call))
  (call
    target: (_) @_outer
    (arguments (call target: (identifier) @name.reference.call)))
  (binary_operator
    operator: _ @_operator
    [
      left: (call target: (identifier) @name.reference.call)
      right: (call target: (identifier) @name.reference.call)
    ])
  (pair value: (call target: (identifier) @name.reference.call))
  (list (call target: (identifier) @name.reference.call))
  (tuple (call target: (identifier) @name.reference.call))
  (interpolation (call target: (identifier) @name.reference.call))
  (unary_operator operator: _ @_operator operand: (call target: (identifier) @name.reference.call))
 ])
 (#not-any-of? @_outer
   "def" "defp" "defmacro" "defmacrop" "defguard" "defguardp" "defdelegate")
 (#not-any-of? @_operator "when" "::" "@")
 (#not-any-of? @name.reference.call
   "def" "defp" "defmacro" "defmacrop" "defmodule" "defprotocol" "defimpl" "defstruct"
   "defexception" "defdelegate" "defguard" "defguardp" "defoverridable" "alias" "import"
   "require" "use" "if" "unless" "case" "cond" "with" "for" "try" "receive" "raise" "reraise"
   "throw" "quote" "unquote" "unquote_splicing" "fn" "super" "is_map" "is_list" "is_atom"
   "is_binary" "is_integer" "is_nil" "is_function" "is_tuple" "is_number" "is_boolean" "elem"
   "length" "map_size" "hd" "tl" "to_string" "inspect" "send" "self" "spawn"
   "list" "map" "integer" "number" "atom" "binary" "boolean" "any" "term" "keyword" "pid"
   "tuple" "float" "non_neg_integer" "pos_integer" "none" "no_return"))

; Remote calls, Mod.f(x) and value.f(x) (with arguments: data.field, without, is a field
; access), except to the standard library's modules: they never resolve to a definition in the
; repository.
((call
  target: (dot left: (alias) @_module right: (identifier) @name.reference.call)
  (arguments))
 (#not-any-of? @_module
   "Enum" "Map" "List" "Keyword" "String" "Integer" "Float" "Kernel" "Logger" "IO" "File" "Path"
   "Process" "Task" "Agent" "GenServer" "Supervisor" "Stream" "Tuple" "Atom" "Application"
   "System" "Code" "Regex" "DateTime" "NaiveDateTime" "Date" "Time" "MapSet" "Access"))
(call
  target: (dot left: [(identifier) (call)] right: (identifier) @name.reference.call)
  (arguments))

; ---------------------------------------------------------------------------------------------
; Scopes
; ---------------------------------------------------------------------------------------------

((call target: (identifier) @_keyword (do_block)) @scope
 (#any-of? @_keyword
   "defmodule" "defprotocol" "defimpl" "def" "defp" "defmacro" "defmacrop"))
