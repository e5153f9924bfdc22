/**
 * Reading a V8 heap snapshot (`HeapProfiler.takeHeapSnapshot`) as a graph: its nodes' types and names,
 * and every edge with its holder. For heap-per-stream.ts and heap-duplicate-strings.ts.
 */

/** The parts of a V8 heap snapshot these tools read. */
export interface SnapshotGraph {
  snapshot: {
    meta: {
      node_fields: string[];
      node_types: [string[]];
      edge_fields: string[];
      edge_types: [string[]];
      location_fields?: string[];
    };
  };
  nodes: number[];
  edges: number[];
  strings: string[];
  /** Where a node's function or constructor is written: (node offset, script id, line, column), zero-based. */
  locations?: number[];
}

/** A text with its ids and digits masked, cut to `length`: strings grouped by what they are, not their value. */
export function textShape(text: string, length = 48): string {
  return text
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, "<uuid>")
    .replace(/[0-9]+/g, "9")
    .slice(0, length);
}

/** A node's type (`object`, `string`, `closure` …), by its offset in `nodes`. */
export function nodeType(graph: SnapshotGraph, at: number): string {
  const meta = graph.snapshot.meta;
  return meta.node_types[0][graph.nodes[at + meta.node_fields.indexOf("type")] as number] as string;
}

/** A node's name: an object's constructor, a closure's function name, a string's value. */
export function nodeName(graph: SnapshotGraph, at: number): string {
  return graph.strings[graph.nodes[at + graph.snapshot.meta.node_fields.indexOf("name")] as number] as string;
}

/**
 * Every edge, as (holder's offset, target's offset, edge type, edge name): a property's name, or
 * `[element]` / `[hidden]` for an index.
 */
export function forEachEdge(
  graph: SnapshotGraph,
  visit: (from: number, to: number, edgeType: string, edgeName: string) => void,
): void {
  const meta = graph.snapshot.meta;
  const nodeFields = meta.node_fields.length;
  const edgeFields = meta.edge_fields.length;
  const edgeCountAt = meta.node_fields.indexOf("edge_count");
  const [edgeTypeAt, edgeNameAt, toAt] = ["type", "name_or_index", "to_node"].map((f) =>
    meta.edge_fields.indexOf(f),
  ) as [number, number, number];
  let edge = 0;
  for (let at = 0; at < graph.nodes.length; at += nodeFields) {
    const count = graph.nodes[at + edgeCountAt] as number;
    for (let k = 0; k < count; k++, edge += edgeFields) {
      const edgeType = meta.edge_types[0][graph.edges[edge + edgeTypeAt] as number] as string;
      const edgeName =
        edgeType === "element" || edgeType === "hidden"
          ? `[${edgeType}]`
          : (graph.strings[graph.edges[edge + edgeNameAt] as number] as string);
      visit(at, graph.edges[edge + toAt] as number, edgeType, edgeName);
    }
  }
}

/**
 * Each located node's place in the source (closures, and objects by their constructor), `file:line`
 * (one-based; the file's last two path segments), by node offset; `scriptUrls` maps the inspector's script ids (from `Debugger.scriptParsed`) to their URLs.
 */
export function sourcePlaces(graph: SnapshotGraph, scriptUrls: Map<string, string>): Map<number, string> {
  const fields = graph.snapshot.meta.location_fields ?? ["object_index", "script_id", "line", "column"];
  const [objectAt, scriptAt, lineAt] = ["object_index", "script_id", "line"].map((f) => fields.indexOf(f)) as [
    number,
    number,
    number,
  ];
  const places = new Map<number, string>();
  const locations = graph.locations ?? [];
  for (let i = 0; i < locations.length; i += fields.length) {
    const url = scriptUrls.get(String(locations[i + scriptAt])) ?? `script ${locations[i + scriptAt]}`;
    const file = url.split("/").slice(-2).join("/");
    places.set(locations[i + objectAt] as number, `${file}:${(locations[i + lineAt] as number) + 1}`);
  }
  return places;
}
