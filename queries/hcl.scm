; HCL and Terraform (@tree-sitter-grammars/tree-sitter-hcl 1.2, its `hcl` grammar).
;
; Terraform's blocks define by their labels: `variable "region"`, `module "network"`, `output
; "arn"`, `resource "TYPE" "NAME"` and `data "TYPE" "NAME"` (by NAME), and each attribute of a
; `locals` block. Expressions read them back as var.region, module.network.x, local.x,
; TYPE.NAME.x and data.TYPE.NAME.x: reads (`read`), by the defined name. Functions are all
; Terraform's own: not captured.

; ---------------------------------------------------------------------------------------------
; Definitions
; ---------------------------------------------------------------------------------------------

((block (identifier) @_kind . (string_lit (template_literal) @name.definition.constant))
 (#any-of? @_kind "variable" "output"))
((block (identifier) @_kind . (string_lit (template_literal) @name.definition.module))
 (#eq? @_kind "module"))
((block (identifier) @_kind . (string_lit) . (string_lit (template_literal) @name.definition.class))
 (#any-of? @_kind "resource" "data"))
((block (identifier) @_kind (body (attribute (identifier) @name.definition.field)))
 (#eq? @_kind "locals"))

; ---------------------------------------------------------------------------------------------
; References
; ---------------------------------------------------------------------------------------------

; var.x, local.x, module.x: the name after the prefix.
((expression (variable_expr (identifier) @_prefix) . (get_attr (identifier) @name.reference.read))
 (#any-of? @_prefix "var" "local" "module"))
; data.TYPE.NAME: the second attribute.
((expression (variable_expr (identifier) @_prefix) . (get_attr) . (get_attr (identifier) @name.reference.read))
 (#eq? @_prefix "data"))
; TYPE.NAME of a resource: any other root with an attribute after it (a resource type has an underscore).
((expression (variable_expr (identifier) @_type) . (get_attr (identifier) @name.reference.read))
 (#match? @_type "_")
 (#not-any-of? @_type "var" "local" "module" "data" "each" "count" "path" "self" "terraform"))

; ---------------------------------------------------------------------------------------------
; Scopes
; ---------------------------------------------------------------------------------------------

(block) @scope

; ---------------------------------------------------------------------------------------------
; Modules (FileNames.modules)
; ---------------------------------------------------------------------------------------------

; A module's local source: source = "./modules/network".
((block (identifier) @_kind (body (attribute (identifier) @_source (expression (literal_value (string_lit (template_literal) @module.import))))))
 (#eq? @_kind "module")
 (#eq? @_source "source"))
