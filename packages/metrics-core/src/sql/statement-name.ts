/**
 * Stable names for the metrics statement's shapes, so a driver prepares each shape once per connection.
 * The SQL text depends only on which pieces a window needs (whole days, hours, raw edges, open sides),
 * never on values, so there are a few dozen shapes; past the cap a text runs unnamed, as before.
 */
const MAX_NAMED_SHAPES = 256;
const names = new Map<string, string>();

/** `a2a_metrics_<hash of the text>`, or undefined once the cap is reached. */
export function metricsStatementName(text: string): string | undefined {
  let name = names.get(text);
  if (name === undefined && names.size < MAX_NAMED_SHAPES) {
    name = `a2a_metrics_${hash53(text).toString(36)}`;
    names.set(text, name);
  }
  return name;
}

/** cyrb53: a 53-bit string hash (no crypto module, this package runs anywhere); collisions are negligible here. */
function hash53(text: string): number {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}
