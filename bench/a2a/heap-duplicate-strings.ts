/**
 * Strings held more than once: values that live in several string objects of one heap snapshot (two
 * parses of the same id, say), grouped by their shape and by who holds each copy. For
 * `heap-per-stream.ts` (`A2A_HEAP_DUPLICATES=1`); investigation tool, not part of the bench run.
 */

/** The parts of a V8 heap snapshot this reads. */
export interface SnapshotGraph {
  snapshot: {
    meta: { node_fields: string[]; node_types: [string[]]; edge_fields: string[]; edge_types: [string[]] };
  };
  nodes: number[];
  edges: number[];
  strings: string[];
}

/** Which string values to look at: ids, timestamps, the bench's task text and token, by their start. */
const WATCHED = /^([0-9a-f]{8}-[0-9a-f]{4}-|heap-|\d{4}-\d\d-\d\dT|Restock|aisle|Bearer )/;

function shapeOf(text: string): string {
  return text
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, "<uuid>")
    .replace(/[0-9]+/g, "9")
    .slice(0, 30);
}

/**
 * Prints to stderr, most frequent first: `count  shape ×copies: {holders of copy 1}  {holders of copy 2} …`,
 * where count is how many distinct values share that pattern of copies (per stream, divide by the streams).
 */
export function printDuplicateStrings(graph: SnapshotGraph, rows = 20): void {
  const meta = graph.snapshot.meta;
  const nodeFields = meta.node_fields.length;
  const edgeFields = meta.edge_fields.length;
  const [typeAt, nameAt, edgeCountAt] = ["type", "name", "edge_count"].map((f) => meta.node_fields.indexOf(f)) as [
    number,
    number,
    number,
  ];
  const [edgeTypeAt, edgeNameAt, toAt] = ["type", "name_or_index", "to_node"].map((f) =>
    meta.edge_fields.indexOf(f),
  ) as [number, number, number];
  const typeOf = (at: number) => meta.node_types[0][graph.nodes[at + typeAt] as number] as string;
  const nameOf = (at: number) => graph.strings[graph.nodes[at + nameAt] as number] as string;

  // Each watched string object, with the (holder, edge) pairs that point at it.
  const holders = new Map<number, Set<string>>();
  let edge = 0;
  for (let at = 0; at < graph.nodes.length; at += nodeFields) {
    const count = graph.nodes[at + edgeCountAt] as number;
    for (let k = 0; k < count; k++, edge += edgeFields) {
      const to = graph.edges[edge + toAt] as number;
      if (typeOf(to) !== "string" || !WATCHED.test(nameOf(to))) continue;
      const edgeType = meta.edge_types[0][graph.edges[edge + edgeTypeAt] as number];
      if (edgeType === "weak") continue;
      const edgeName =
        edgeType === "element" || edgeType === "hidden"
          ? `[${edgeType}]`
          : graph.strings[graph.edges[edge + edgeNameAt] as number];
      const holder = typeOf(at) === "object" ? nameOf(at) : `(${typeOf(at)})`;
      const set = holders.get(to) ?? new Set<string>();
      set.add(`${holder}.${edgeName}`);
      holders.set(to, set);
    }
  }

  const copiesByValue = new Map<string, number[]>();
  for (const node of holders.keys()) {
    const copies = copiesByValue.get(nameOf(node)) ?? [];
    copies.push(node);
    copiesByValue.set(nameOf(node), copies);
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
    const key = `${shapeOf(value)} ×${copies.length}: ${held.slice(0, 4).join("  ")}${held.length > 4 ? "  …" : ""}`;
    patterns.set(key, (patterns.get(key) ?? 0) + 1);
  }
  for (const [key, count] of [...patterns].sort((a, b) => b[1] - a[1]).slice(0, rows)) {
    process.stderr.write(`${String(count).padStart(7)}  ${key}\n`);
  }
  process.stderr.write(`duplicate string objects: ${extraCopies} (~${Math.round(extraBytes / 1024)} KiB)\n`);
}
