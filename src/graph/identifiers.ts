// Tests on identifiers: Aider's multiplier of a name's edges, and what counts as a compound or a
// multi-word name. The weights are the model's (model.ts).
import { EDGE_WEIGHTS } from '../model.js';

/** Aider's per-identifier multiplier: mentions and long compound names up, private and ubiquitous names down. */
export function identifierMultiplier(ident: string, definerCount: number, mentioned: ReadonlySet<string>): number {
  let mul = 1;
  if (mentioned.has(ident)) mul *= EDGE_WEIGHTS.mentionedIdent;
  if (isCompoundIdentifier(ident) && ident.length >= EDGE_WEIGHTS.compoundMinLength) mul *= EDGE_WEIGHTS.compoundIdent;
  if (ident.startsWith('_')) mul *= EDGE_WEIGHTS.privateIdent;
  if (definerCount > EDGE_WEIGHTS.widelyDefinedOver) mul *= EDGE_WEIGHTS.widelyDefined;
  return mul;
}

/** snake_case, kebab-case or camelCase (mixed case). */
export function isCompoundIdentifier(ident: string): boolean {
  const hasLetter = /\p{L}/u.test(ident);
  const snake = ident.includes('_') && hasLetter;
  const kebab = ident.includes('-') && hasLetter;
  const camel = /\p{Lu}/u.test(ident) && /\p{Ll}/u.test(ident);
  return snake || kebab || camel;
}

/**
 * An identifier of two words or more: camelCase (`parseOrder`, `getHTTPClient`), PascalCase of two
 * words (`PriceOrder`, `HTTPClient`, but not `Router`), snake_case or CONSTANT_CASE (an underscore
 * between two letters or digits: `load_config`, `MAX_SIZE`, but not `__init__` or `_x`). Stricter
 * than isCompoundIdentifier, which is Aider's test and keeps its model: there any mixed case counts.
 */
export function isMultiWordIdentifier(ident: string): boolean {
  return /[\p{Ll}\p{Nd}]\p{Lu}|\p{Lu}\p{Lu}\p{Ll}|[\p{L}\p{Nd}]_+[\p{L}\p{Nd}]/u.test(ident);
}
