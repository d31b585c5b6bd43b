// JSON from a publisher (attestation statements, scanner reports) is parsed only after one pass that bounds its
// nesting (docs/attestations.md#bounds): a document nested thousands deep would otherwise cost every reader of it a
// recursion of that depth. The pass skips strings (with their escapes) and counts brackets: linear, no allocation.

/** The deepest nesting of arrays and objects in `text`, stopping once it passes `limit`. */
export function nestingDepth(text: string, limit: number): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // a backslash escapes the next character, a quote included
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      depth++;
      if (depth > deepest && (deepest = depth) > limit) return deepest;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return deepest;
}

/** JSON.parse of `text` when it is nested at most `maxDepth` deep; throws naming the bound otherwise. */
export function parseBoundedJson(text: string, maxDepth: number): unknown {
  if (nestingDepth(text, maxDepth) > maxDepth) throw new RangeError(`nested more than ${maxDepth} deep`);
  return JSON.parse(text);
}
