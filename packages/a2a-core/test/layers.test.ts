import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// The layers of src/, bottom first (docs/architecture.md draws them). A module imports only from its own
// layer or one below: contracts never import their users, and nothing below the assembly imports an adapter.
const LAYERS = [
  // ../third_party/generated: protobuf-es code of the vendored a2a.proto (`pnpm generate:grpc`), below everything.
  ["../third_party/generated"],
  ["protocol"],
  ["ports"],
  ["telemetry", "stores", "environments"],
  ["runtime"],
  ["methods"],
  ["bindings"],
  // node-runtime: a Node process's set-up (heap, OpenTelemetry SDK, control socket), beside the adapters.
  ["adapters", "node-runtime"],
  ["assembly"],
  // The package's entries (index.ts, node.ts, node-runtime.ts, testing.ts) and the testing kit sit on top.
  ["(entry)", "testing"],
];

const src = resolve(dirname(fileURLToPath(import.meta.url)), "../src");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") ? [path] : [];
  });
}

function layerOf(file: string): number {
  const path = relative(src, file);
  const top = path.startsWith("../third_party/generated/") ? "../third_party/generated" : (path.split("/")[0] ?? "");
  const folder = top.endsWith(".ts") ? "(entry)" : top;
  const index = LAYERS.findIndex((names) => names.includes(folder));
  if (index < 0) throw new Error(`${relative(src, file)} is in no layer: add its folder to LAYERS`);
  return index;
}

function relativeImports(file: string): string[] {
  const text = readFileSync(file, "utf8");
  return [...text.matchAll(/(?:from|import)\s*\(?\s*"(\.{1,2}\/[^"]+)"/g)].map((match) =>
    resolve(dirname(file), (match[1] as string).replace(/\.js$/, ".ts")),
  );
}

const files = sourceFiles(src);

describe("a2a-core's layers", () => {
  it("every module imports only from its own layer or below", () => {
    const upward = files.flatMap((file) =>
      relativeImports(file)
        .filter((target) => layerOf(target) > layerOf(file))
        .map((target) => `${relative(src, file)} → ${relative(src, target)}`),
    );
    expect(upward).toEqual([]);
  });

  it("has no import circles", () => {
    const graph = new Map(files.map((file) => [file, relativeImports(file)]));
    const circles: string[] = [];
    const state = new Map<string, "open" | "done">();
    const visit = (file: string, path: string[]) => {
      if (state.get(file) === "done") return;
      if (state.get(file) === "open") {
        circles.push([...path.slice(path.indexOf(file)), file].map((f) => relative(src, f)).join(" → "));
        return;
      }
      state.set(file, "open");
      for (const next of graph.get(file) ?? []) visit(next, [...path, file]);
      state.set(file, "done");
    };
    for (const file of files) visit(file, []);
    expect(circles).toEqual([]);
  });

  it("keeps every source file under 300 lines", () => {
    const long = files
      .map((file) => ({ file: relative(src, file), lines: readFileSync(file, "utf8").split("\n").length }))
      .filter(({ lines }) => lines > 300);
    expect(long).toEqual([]);
  });

  it("keeps the root entry free of Node built-ins and undici (the /node entry has them)", () => {
    const reached = new Set<string>();
    const visit = (file: string) => {
      if (reached.has(file)) return;
      reached.add(file);
      for (const next of relativeImports(file)) visit(next);
    };
    visit(join(src, "index.ts"));
    const nodeOnly = [...reached].flatMap((file) =>
      [...readFileSync(file, "utf8").matchAll(/(?:from|import)\s*\(?\s*"((?:node:|undici)[^"]*)"/g)].map(
        (match) => `${relative(src, file)} → ${match[1]}`,
      ),
    );
    expect(nodeOnly).toEqual([]);
    expect(reached.has(join(src, "adapters/node-push/guarded-push-fetch.ts"))).toBe(false);
  });

  it("loads grpc-js and protobuf only through the /grpc entry (optional peer dependencies)", () => {
    for (const entry of ["index.ts", "node.ts", "protocol.ts", "testing.ts"]) {
      const reached = new Set<string>();
      const visit = (file: string) => {
        if (reached.has(file)) return;
        reached.add(file);
        for (const next of relativeImports(file)) visit(next);
      };
      visit(join(src, entry));
      const grpc = [...reached].filter((file) => /from\s+"@(?:grpc|bufbuild)\//.test(readFileSync(file, "utf8")));
      expect(grpc.map((file) => `${entry} → ${relative(src, file)}`)).toEqual([]);
    }
  });
});
