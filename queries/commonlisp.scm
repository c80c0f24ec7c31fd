; Common Lisp (tree-sitter-commonlisp 0.4).
;
; defun, defmacro, defgeneric and defmethod have a node of their own (defun, named by its
; defun_header); defclass, defstruct, defconstant, defparameter, defvar and defpackage are lists
; whose head says what they define. A list's head symbol is a call when it is hyphenated
; (log-choice): parameter lists have their own node, but a let binding is a list with a symbol
; head too, and bindings are mostly plain words; the standard library's everyday hyphenated
; functions are left out. #'f is a call.

; ---------------------------------------------------------------------------------------------
; Definitions
; ---------------------------------------------------------------------------------------------

((defun_header keyword: (defun_keyword) @_keyword function_name: (sym_lit) @name.definition.macro)
 (#eq? @_keyword "defmacro"))
((defun_header keyword: (defun_keyword) @_keyword function_name: (sym_lit) @name.definition.method)
 (#any-of? @_keyword "defmethod" "defgeneric"))
(defun_header function_name: (sym_lit) @name.definition.function)

((list_lit . value: (sym_lit) @_define . value: (sym_lit) @name.definition.class)
 (#any-of? @_define "defclass" "define-condition"))
((list_lit . value: (sym_lit) @_define . value: (sym_lit) @name.definition.struct)
 (#eq? @_define "defstruct"))
((list_lit . value: (sym_lit) @_define . value: (sym_lit) @name.definition.constant)
 (#eq? @_define "defconstant"))
((list_lit . value: (sym_lit) @_define . value: (sym_lit) @name.definition.variable)
 (#any-of? @_define "defparameter" "defvar"))
((list_lit . value: (sym_lit) @_define . value: (kwd_lit (kwd_symbol) @name.definition.module))
 (#eq? @_define "defpackage"))

; ---------------------------------------------------------------------------------------------
; References
; ---------------------------------------------------------------------------------------------

; (defpackage :p (:use :a :b)) imports packages; (defclass c (base ...) ...) inherits.
((list_lit . value: (sym_lit) @_define (list_lit . value: (kwd_lit (kwd_symbol) @_use) value: (kwd_lit (kwd_symbol) @name.reference.import)))
 (#eq? @_define "defpackage")
 (#eq? @_use "use")
 (#not-eq? @name.reference.import "use"))
((list_lit . value: (sym_lit) @_define . value: (sym_lit) . value: (list_lit value: (sym_lit) @name.reference.inheritance))
 (#eq? @_define "defclass"))

((list_lit . value: (sym_lit) @name.reference.call)
 (#match? @name.reference.call "^[^&:].*[^-]-[^-]")
 (#not-any-of? @name.reference.call
   "in-package" "defclass" "defstruct" "defconstant" "defparameter" "defpackage"
   "define-condition" "make-instance" "make-hash-table" "multiple-value-bind" "destructuring-bind"
   "with-slots" "with-accessors" "with-open-file" "with-output-to-string" "handler-case"
   "unwind-protect" "call-next-method" "remove-if" "remove-if-not" "find-if" "position-if"
   "string-upcase" "string-downcase" "slot-value" "hash-table-count" "read-line" "write-line"))
((var_quoting_lit value: (sym_lit) @name.reference.call)
 (#match? @name.reference.call "-"))

; ---------------------------------------------------------------------------------------------
; Scopes
; ---------------------------------------------------------------------------------------------

(defun) @scope
((list_lit . value: (sym_lit) @_define) @scope
 (#any-of? @_define "defclass" "defpackage"))

; ---------------------------------------------------------------------------------------------
; Modules (FileNames.modules)
; ---------------------------------------------------------------------------------------------

((list_lit . value: (sym_lit) @_define (list_lit . value: (kwd_lit (kwd_symbol) @_use) value: (kwd_lit (kwd_symbol) @module.import)))
 (#eq? @_define "defpackage")
 (#eq? @_use "use")
 (#not-eq? @module.import "use"))
