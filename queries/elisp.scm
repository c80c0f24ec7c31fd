; Emacs Lisp (tree-sitter-elisp 1.7).
;
; Names are global (a package prefixes its own): defun/defmacro define functions and macros,
; defconst constants, defvar/defcustom variables, cl-defstruct a structure. A list's head symbol
; is a call when it is package-prefixed (has a hyphen: shop-pricing-describe), and so is #'f: a
; parameter list or a let binding is a list with a symbol head too, and their names are plain
; words. Emacs's everyday hyphenated functions are left out. (require 'feature) is a
; module: the file providing the feature, by convention feature.el.

; ---------------------------------------------------------------------------------------------
; Definitions
; ---------------------------------------------------------------------------------------------

(function_definition name: (symbol) @name.definition.function)
(macro_definition name: (symbol) @name.definition.macro)
(special_form "defconst" . (symbol) @name.definition.constant)
(special_form "defvar" . (symbol) @name.definition.variable)
((list . (symbol) @_define . (symbol) @name.definition.variable)
 (#any-of? @_define "defcustom" "defvar-local" "defface" "defgroup"))
((list . (symbol) @_define . (symbol) @name.definition.struct)
 (#any-of? @_define "cl-defstruct"))
((list . (symbol) @_define . (symbol) @name.definition.function)
 (#any-of? @_define "cl-defun" "cl-defgeneric" "cl-defmethod" "defsubst" "define-inline"))
((list . (symbol) @_define . (symbol) @name.definition.class)
 (#any-of? @_define "define-derived-mode" "define-minor-mode"))

; ---------------------------------------------------------------------------------------------
; References
; ---------------------------------------------------------------------------------------------

((list . (symbol) @_require . (quote (symbol) @name.reference.import))
 (#eq? @_require "require"))

((list . (symbol) @name.reference.call)
 (#match? @name.reference.call "^[^&].*[^-]-[^-]")
 (#not-any-of? @name.reference.call
   "require" "provide" "defcustom" "defvar-local" "defface" "defgroup" "cl-defstruct" "cl-defun"
   "cl-defmethod" "cl-defgeneric" "defsubst" "define-derived-mode" "define-minor-mode"
   "car" "cdr" "cons" "list" "append" "nth" "length" "assoc" "assq" "member" "memq" "mapcar"
   "mapc" "sort" "reverse" "not" "null" "eq" "equal" "format" "message" "concat" "error"
   "funcall" "apply" "min" "max" "+" "-" "*" "/" "<" ">" "<=" ">=" "=" "1+" "1-" "push" "pop"
   "when" "unless" "dolist" "dotimes" "with-current-buffer" "save-excursion" "interactive"
   "seq-take" "seq-filter" "seq-map" "plist-get" "gethash" "puthash" "string=" "stringp"))
((function_quote (symbol) @name.reference.call)
 (#match? @name.reference.call "-"))

; ---------------------------------------------------------------------------------------------
; Scopes
; ---------------------------------------------------------------------------------------------

(function_definition) @scope
(macro_definition) @scope

; ---------------------------------------------------------------------------------------------
; Modules (FileNames.modules)
; ---------------------------------------------------------------------------------------------

((list . (symbol) @_require . (quote (symbol) @module.import))
 (#eq? @_require "require"))
