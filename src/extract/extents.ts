// A definition's extent (DefTag.end): the last row of the syntax node it names, found among the
// `@scope` nodes its language's query captures, without asking the tree for any node's parent.

/** A captured `@scope` node: its byte range and its first and last rows. */
export interface ScopeSpan {
  start: number;
  end: number;
  row: number;
  endRow: number;
}

/**
 * Sets `end` on the definitions whose own scope node is known. `sites` holds three numbers per
 * definition (parallel to `defs`): its name node's start and end bytes, and how many scopes had
 * been captured before it. `spans` holds the scopes in capture order (document order: by start).
 *
 * A definition's own scope is, first, the innermost scope that holds its name and starts on the
 * name's row (a function, class or type node, or a `const f = () => ...` declarator, all start on
 * the header line that names them); or else the first scope starting after the name on a row of
 * its signature (an annotated Java or decorated TypeScript declaration, whose scope is its body:
 * the query captures the body so that the header line is the name's), unless that scope's first
 * row holds the next definition's name (then it is that one's). A scope is one definition's
 * only: a scope already taken (a one-line `class A: x = 1` holds `x` on the class's row) gives the
 * later definition none. A definition with no scope of its own (a constant, a field, a C function
 * whose name is on the row after its return type) has no extent: nothing is guessed.
 */
export function setExtents(defs: ReadonlyArray<{ line: number; signatureEnd: number; end?: number }>, sites: readonly number[], spans: readonly ScopeSpan[]): void {
  const taken = new Uint8Array(spans.length);
  for (let i = 0; i < defs.length; i++) {
    const def = defs[i];
    const nameStart = sites[3 * i];
    const nameEnd = sites[3 * i + 1];
    const before = sites[3 * i + 2];
    let own = -1;
    // Scopes holding the name on its row: those captured before it whose row is the name's (spans
    // are in start order, so they are the last ones), and any starting where the name starts that
    // were captured after it. The innermost is the smallest.
    for (let k = before - 1; k >= 0 && spans[k].row === def.line; k--) {
      if (holds(spans[k], nameStart, nameEnd) && (own === -1 || size(spans[k]) < size(spans[own]))) own = k;
    }
    for (let k = before; k < spans.length && spans[k].start === nameStart; k++) {
      if (holds(spans[k], nameStart, nameEnd) && (own === -1 || size(spans[k]) < size(spans[own]))) own = k;
    }
    if (own === -1 && before < spans.length) {
      // The first scope after the name (past any starting where it starts, which hold it).
      let next = before;
      while (next < spans.length && spans[next].start === nameStart) next++;
      const span = spans[next];
      // A scope whose first row holds the next definition's name is that one's header (`const
      // api = { get() {`: the method's), not a body of this one.
      const header = i + 1 < defs.length && defs[i + 1].line === span?.row && holds(span, sites[3 * i + 3], sites[3 * i + 4]);
      if (span && !header && span.start >= nameEnd && span.row >= def.line && span.row <= def.signatureEnd) own = next;
    }
    if (own === -1 || taken[own]) continue;
    taken[own] = 1;
    def.end = Math.max(def.line, spans[own].endRow);
  }
}

function holds(span: ScopeSpan, start: number, end: number): boolean {
  return span.start <= start && span.end >= end;
}

function size(span: ScopeSpan): number {
  return span.end - span.start;
}
