import { type A2AError, InvalidRequestError, ParseError } from "../protocol/errors.js";
import { A2A_LIMITS } from "../protocol/limits.js";

/**
 * A request body as JSON, for every binding that takes JSON: refused past `A2A_LIMITS.nestingDepth`
 * before it is parsed (-32600), and -32700 when it is not JSON. What shape it must have is the codec's.
 */
export function parseJsonBody(text: string): { ok: true; value: unknown } | { ok: false; error: A2AError } {
  if (exceedsNestingDepth(text, A2A_LIMITS.nestingDepth)) {
    return {
      ok: false,
      error: new InvalidRequestError(`Invalid request: JSON nested deeper than ${A2A_LIMITS.nestingDepth} levels`),
    };
  }
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false, error: new ParseError() };
  }
}

/**
 * Whether JSON text nests arrays/objects deeper than `maxDepth`, checked on the raw text before parsing
 * (strings are skipped). A request that deep is refused up front: every later step (validation, cloning,
 * storage) would otherwise walk it recursively.
 */
export function exceedsNestingDepth(text: string, maxDepth: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i);
    if (inString) {
      if (char === 0x5c /* \ */) i++;
      else if (char === 0x22 /* " */) inString = false;
    } else if (char === 0x22) {
      inString = true;
    } else if (char === 0x5b /* [ */ || char === 0x7b /* { */) {
      if (++depth > maxDepth) return true;
    } else if (char === 0x5d /* ] */ || char === 0x7d /* } */) {
      depth--;
    }
  }
  return false;
}
