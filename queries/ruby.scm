; Ruby (tree-sitter-ruby 0.23).
;
; Ordering matters: extract.ts keeps the first tag per name node, and tree-sitter returns the
; captures of one node in pattern order. So a more specific pattern (a top-level function, a
; constructor call, a mixin) comes before a general one (method, call, type) matching the same
; node.
;
; Not captured as names: require/require_relative (they name files: captured as modules, at the
; end), attr_reader and friends (their names are symbols, :name, and the query language cannot
; cut off the colon), and calls written without arguments or parentheses (`total`), which the
; grammar cannot tell from local variables.

; ---------------------------------------------------------------------------------------------
; Definitions
; ---------------------------------------------------------------------------------------------

(class
  name: [
    (constant) @name.definition.class
    (scope_resolution name: (constant) @name.definition.class)
  ])
(module
  name: [
    (constant) @name.definition.module
    (scope_resolution name: (constant) @name.definition.module)
  ])

; A def at the top of a file is a function; any other def (in a class, a module, a class << self
; block) a method, and so is def self.name.
(program (method name: (_) @name.definition.function))
(method name: (_) @name.definition.method)
(singleton_method name: (_) @name.definition.method)

; Constants: NAME = value, at any level (in Ruby a constant is one by its capital letter).
(assignment
  left: [
    (constant) @name.definition.constant
    (scope_resolution name: (constant) @name.definition.constant)
  ])

; ---------------------------------------------------------------------------------------------
; References
; ---------------------------------------------------------------------------------------------

; Superclasses and mixins: class A < B, class A < Mod::B; include M, extend M, prepend M.
(superclass
  [
    (constant) @name.reference.inheritance
    (scope_resolution name: (constant) @name.reference.inheritance)
  ])
((call
  !receiver
  method: (identifier) @_mixin
  arguments: (argument_list
    [
      (constant) @name.reference.inheritance
      (scope_resolution name: (constant) @name.reference.inheritance)
    ]))
 (#any-of? @_mixin "include" "extend" "prepend"))

; Construction: Foo.new, Mod::Foo.new (the class, not `new`).
((call
  receiver: [
    (constant) @name.reference.new
    (scope_resolution name: (constant) @name.reference.new)
  ]
  method: (identifier) @_new)
 (#eq? @_new "new"))

; Calls: f(x), f x, obj.f, Foo.f, obj&.f. Kernel's and Module's everyday methods, and the
; declarations that read as calls (include, private, attr_reader...), are left out: they never
; resolve to a definition in the repository.
((call method: (identifier) @name.reference.call)
 (#not-any-of? @name.reference.call
   "new" "require" "require_relative" "load" "include" "extend" "prepend" "attr_reader"
   "attr_writer" "attr_accessor" "private" "protected" "public" "module_function"
   "private_constant" "raise" "puts" "print" "p" "pp" "format" "sprintf" "loop" "lambda" "proc"
   "block_given?" "respond_to?" "is_a?" "kind_of?" "nil?" "freeze" "dup" "to_s" "to_i" "to_a"
   "to_h" "each" "map" "select" "reject" "each_with_object" "inject" "reduce"))

; Uses of a class or module by name, where a value goes: Foo.bar (the receiver), f(Foo),
; x = Foo, rescue Foo, [Foo], Foo::Bar (the last name). Not the names being defined.
([
  (call receiver: (constant) @name.reference.type)
  (call receiver: (scope_resolution name: (constant) @name.reference.type))
  (argument_list (constant) @name.reference.type)
  (argument_list (scope_resolution name: (constant) @name.reference.type))
  (assignment right: (constant) @name.reference.type)
  (assignment right: (scope_resolution name: (constant) @name.reference.type))
  (binary [left: (constant) right: (constant)] @name.reference.type)
  (exceptions (constant) @name.reference.type)
  (exceptions (scope_resolution name: (constant) @name.reference.type))
  (array (constant) @name.reference.type)
  (pair value: (constant) @name.reference.type)
  (return (argument_list (constant) @name.reference.type))
 ])

; ---------------------------------------------------------------------------------------------
; Scopes
; ---------------------------------------------------------------------------------------------

(class) @scope
(module) @scope
(singleton_class) @scope
(method) @scope
(singleton_method) @scope

; ---------------------------------------------------------------------------------------------
; Modules (FileNames.modules)
; ---------------------------------------------------------------------------------------------

; require 'a/b'; require_relative 'x' (kept as ./x: module.relative).
((call
  !receiver
  method: (identifier) @_require
  arguments: (argument_list . (string . (string_content) @module.import .) .))
 (#eq? @_require "require"))
((call
  !receiver
  method: (identifier) @_require
  arguments: (argument_list . (string . (string_content) @module.relative .) .))
 (#eq? @_require "require_relative"))
