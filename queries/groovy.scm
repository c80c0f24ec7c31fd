; Groovy (tree-sitter-groovy 0.1), followed by java.scm: the grammar extends Java's, so classes,
; interfaces, enums, methods, fields, imports, annotations, inheritance, new, calls and types are
; captured as in Java. Here: what Groovy adds, a script's top-level `def` methods.

(program (function_definition name: (identifier) @name.definition.function))
(function_definition) @scope
