; JSX, for TSX and JavaScript: using a component is a reference to it. Lower-case tags are
; HTML elements, not components, so only capitalised names count.

(jsx_opening_element
  name: (identifier) @name.reference.call
  (#match? @name.reference.call "^[A-Z]"))
(jsx_self_closing_element
  name: (identifier) @name.reference.call
  (#match? @name.reference.call "^[A-Z]"))
; <Menu.Item>: the component is the last property.
(jsx_opening_element
  name: (member_expression property: (property_identifier) @name.reference.call))
(jsx_self_closing_element
  name: (member_expression property: (property_identifier) @name.reference.call))
