/**
 * Reads a V8 `.cpuprofile` (from `pnpm bench:a2a --cpu-prof <dir>`) and prints where the time went: self
 * and inclusive time by module (npm package, node: module or repository file), the hottest functions,
 * and which callers the socket writes (`writev`) come from. Investigation tool, not part of the bench run.
 *
 *   node bench/a2a/profile-summary.ts /tmp/prof/CPU.….cpuprofile
 */
import { readFileSync } from "node:fs";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const file = process.argv[2];
if (!file) throw new Error("usage: profile-summary.ts <file.cpuprofile>");
const profile = JSON.parse(readFileSync(file, "utf8")) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parentOf = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);

/** The module a frame belongs to: npm package, node: module, repository file, or a V8 pseudo-frame. */
function moduleOf(node: ProfileNode): string {
  const { url, functionName } = node.callFrame;
  if (!url) return functionName.startsWith("(") ? functionName : `native ${functionName}`;
  const pkg = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1] as string;
  return url.startsWith("node:") ? url : url.replace(/^file:\/\/.*?\/(packages|examples|bench)\//, "$1/");
}

function frameOf(node: ProfileNode): string {
  return `${node.callFrame.functionName || "(anonymous)"} ${moduleOf(node)}:${node.callFrame.lineNumber + 1}`;
}

function stackOf(id: number): ProfileNode[] {
  const stack: ProfileNode[] = [];
  for (let at: number | undefined = id; at !== undefined; at = parentOf.get(at))
    stack.push(byId.get(at) as ProfileNode);
  return stack;
}

const selfTime = new Map<number, number>();
let total = 0;
profile.samples.forEach((id, i) => {
  const dt = profile.timeDeltas[i] ?? 0;
  selfTime.set(id, (selfTime.get(id) ?? 0) + dt);
  total += dt;
});

const selfByModule = new Map<string, number>();
const inclusiveByModule = new Map<string, number>();
const selfByFrame = new Map<string, number>();
const writevCallers = new Map<string, number>();
const add = (map: Map<string, number>, key: string, t: number) => map.set(key, (map.get(key) ?? 0) + t);
for (const [id, t] of selfTime) {
  const stack = stackOf(id);
  const leaf = stack[0] as ProfileNode;
  add(selfByModule, moduleOf(leaf), t);
  add(selfByFrame, frameOf(leaf), t);
  for (const module of new Set(stack.map(moduleOf))) add(inclusiveByModule, module, t);
  if (leaf.callFrame.functionName === "writev") {
    const caller = stack.find((n) => /^(pg|pg-pool|node:_http_outgoing|node:_http_server)$/.test(moduleOf(n)));
    add(writevCallers, caller ? frameOf(caller) : "(other)", t);
  }
}

const share = (t: number) => `${((100 * t) / total).toFixed(1).padStart(5)}%`;
function print(title: string, map: Map<string, number>, top: number): void {
  process.stdout.write(`\n${title}\n`);
  for (const [key, t] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top))
    process.stdout.write(`${share(t)}  ${key}\n`);
}
process.stdout.write(`${file}: ${(total / 1e6).toFixed(1)} s sampled\n`);
print("self time by module", selfByModule, 20);
print("inclusive time by module", inclusiveByModule, 25);
print("self time by function", selfByFrame, 20);
print("socket writes (writev) by caller", writevCallers, 6);
