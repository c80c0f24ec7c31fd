; Solidity (tree-sitter-solidity, as built into tree-sitter-wasms 0.1.13; WebAssembly).
;
; Ordering matters: extract.ts keeps the first tag per node. Functions of a contract, interface
; or library are methods; free functions (file level) are functions.

; ---------------------------------------------------------------------------------------------
; Definitions
; ---------------------------------------------------------------------------------------------

(contract_declaration name: (identifier) @name.definition.class)
(library_declaration name: (identifier) @name.definition.class)
(interface_declaration name: (identifier) @name.definition.interface)
(struct_declaration name: (identifier) @name.definition.struct)
(enum_declaration name: (identifier) @name.definition.enum)
(enum_declaration (enum_value) @name.definition.constant)
(event_definition name: (identifier) @name.definition.event)
(modifier_definition name: (identifier) @name.definition.modifier)
(contract_body (function_definition name: (identifier) @name.definition.method))
(source_file (function_definition name: (identifier) @name.definition.function))
((state_variable_declaration name: (identifier) @name.definition.constant) @_declaration
 (#match? @_declaration "\\b(constant|immutable)\\b"))
(state_variable_declaration name: (identifier) @name.definition.field)
(struct_member name: (identifier) @name.definition.field)
(user_defined_type_definition name: (identifier) @name.definition.type)

; ---------------------------------------------------------------------------------------------
; References
; ---------------------------------------------------------------------------------------------

(import_directive import_name: (identifier) @name.reference.import)
(inheritance_specifier ancestor: (user_defined_type (identifier) @name.reference.inheritance .))
(modifier_invocation (identifier) @name.reference.decorator)

; Calls: f(x), A.f(x); emit E(x); new C(x). Builtins (require, assert, keccak256, ...) left out.
((call_expression function: (identifier) @name.reference.call)
 (#not-any-of? @name.reference.call "require" "assert" "revert" "keccak256" "sha256" "ecrecover" "addmod" "mulmod" "payable" "address" "type"))
(call_expression function: (member_expression property: (identifier) @name.reference.call))
(emit_statement name: (identifier) @name.reference.call)
(new_expression (type_name (user_defined_type (identifier) @name.reference.new .)))

; Types: a user-defined type anywhere but in an inheritance list (above).
(type_name (user_defined_type (identifier) @name.reference.type .))

; ---------------------------------------------------------------------------------------------
; Scopes
; ---------------------------------------------------------------------------------------------

(contract_declaration) @scope
(library_declaration) @scope
(interface_declaration) @scope
(struct_declaration) @scope
(function_definition) @scope

; ---------------------------------------------------------------------------------------------
; Modules (FileNames.modules)
; ---------------------------------------------------------------------------------------------

; import "./A.sol"; import {X} from "pkg/B.sol"; (as written: a path, or a remapped package).
(import_directive source: (string) @module.import)
