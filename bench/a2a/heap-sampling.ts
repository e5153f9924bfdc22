/**
 * Where a sampling heap profile's bytes were allocated: by the allocating frame, and by the nearest frame
 * of this repository on its stack (so JSON.parse or a zod internal is charged to the code that called
 * it). Used by `big-starts.ts --alloc-profile`; also runs alone on a saved profile:
 *
 *   node bench/a2a/heap-sampling.ts /tmp/starts.heapprofile
 */
import { readFileSync } from "node:fs";
import type { SamplingHeapNode, SamplingHeapProfile } from "./inspector.ts";

/** Where a frame lives: a repository file, an npm package, a node: module, or V8's own. */
function placeOf(url: string): string {
  if (!url) return "(native)";
  const pkg = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1] as string;
  return url.startsWith("node:") ? url : url.replace(/^file:\/\/.*?\/(packages|examples|bench)\//, "$1/");
}

function frameOf(node: SamplingHeapNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  return `${functionName || "(anonymous)"} ${placeOf(url)}:${lineNumber + 1}`;
}

const isOurs = (node: SamplingHeapNode) => /\/(packages|examples)\/[^/]+\/(src|dist)\//.test(node.callFrame.url);

/** The profile's bytes by allocating frame and by nearest repository frame, largest first, as text lines. */
export function summarizeHeapProfile(profile: SamplingHeapProfile, top = 20): string[] {
  const byFrame = new Map<string, number>();
  const byOurs = new Map<string, number>();
  let total = 0;
  const walk = (node: SamplingHeapNode, ours: string | undefined) => {
    const nearest = isOurs(node) ? frameOf(node) : ours;
    if (node.selfSize > 0) {
      total += node.selfSize;
      const frame = frameOf(node);
      byFrame.set(frame, (byFrame.get(frame) ?? 0) + node.selfSize);
      const key = nearest ?? `(outside the repository) ${frame}`;
      byOurs.set(key, (byOurs.get(key) ?? 0) + node.selfSize);
    }
    for (const child of node.children) walk(child, nearest);
  };
  walk(profile.head, undefined);
  const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1).padStart(8)} MiB`;
  const share = (bytes: number) => `${((100 * bytes) / total).toFixed(1).padStart(5)} %`;
  const table = (map: Map<string, number>) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([frame, bytes]) => `  ${mib(bytes)} ${share(bytes)}  ${frame}`);
  return [
    `sampled: ${mib(total).trim()}`,
    "by allocating frame:",
    ...table(byFrame),
    "by nearest frame of this repository:",
    ...table(byOurs),
  ];
}

if (import.meta.main) {
  const file = process.argv[2];
  if (!file) throw new Error("usage: heap-sampling.ts <file.heapprofile>");
  const profile = JSON.parse(readFileSync(file, "utf8")) as SamplingHeapProfile;
  console.log(summarizeHeapProfile(profile, Number(process.argv[3] ?? 20)).join("\n"));
}
