/**
 * Strings held more than once: values that live in several string objects of one heap snapshot (two
 * parses of the same id, say), grouped by their shape and by who holds each copy. For
 * `heap-per-stream.ts` (`A2A_HEAP_DUPLICATES=1`); investigation tool, not part of the bench run.
 */
import { forEachEdge, nodeName, nodeType, type SnapshotGraph, textShape } from "./heap-snapshot-graph.ts";

/** Which string values to look at: ids, timestamps, the bench's task text and token, by their start. */
const WATCHED = /^([0-9a-f]{8}-[0-9a-f]{4}-|heap-|\d{4}-\d\d-\d\dT|Restock|aisle|Bearer )/;

/**
 * Prints to stderr, most frequent first: `count  shape ×copies: {holders of copy 1}  {holders of copy 2} …`,
 * where count is how many distinct values share that pattern of copies (per stream, divide by the streams).
 */
export function printDuplicateStrings(graph: SnapshotGraph, rows = 20): void {
  // Each watched string object, with the (holder, edge) pairs that point at it.
  const holders = new Map<number, Set<string>>();
  forEachEdge(graph, (from, to, edgeType, edgeName) => {
    if (edgeType === "weak" || nodeType(graph, to) !== "string" || !WATCHED.test(nodeName(graph, to))) return;
    const holder = nodeType(graph, from) === "object" ? nodeName(graph, from) : `(${nodeType(graph, from)})`;
    const set = holders.get(to) ?? new Set<string>();
    set.add(`${holder}.${edgeName}`);
    holders.set(to, set);
  });

  const copiesByValue = new Map<string, number[]>();
  for (const node of holders.keys()) {
    const copies = copiesByValue.get(nodeName(graph, node)) ?? [];
    copies.push(node);
    copiesByValue.set(nodeName(graph, node), copies);
  }
  const patterns = new Map<string, number>();
  let extraCopies = 0;
  let extraBytes = 0;
  for (const [value, copies] of copiesByValue) {
    if (copies.length < 2) continue;
    extraCopies += copies.length - 1;
    // A sequential one-byte string: a 16-byte header, then the characters rounded up to 8 bytes.
    extraBytes += (copies.length - 1) * (16 + Math.ceil(value.length / 8) * 8);
    const held = copies.map((node) => `{${[...(holders.get(node) ?? [])].sort().join(" + ")}}`).sort();
    const key = `${textShape(value, 30)} ×${copies.length}: ${held.slice(0, 4).join("  ")}${held.length > 4 ? "  …" : ""}`;
    patterns.set(key, (patterns.get(key) ?? 0) + 1);
  }
  for (const [key, count] of [...patterns].sort((a, b) => b[1] - a[1]).slice(0, rows)) {
    process.stderr.write(`${String(count).padStart(7)}  ${key}\n`);
  }
  process.stderr.write(`duplicate string objects: ${extraCopies} (~${Math.round(extraBytes / 1024)} KiB)\n`);
}
