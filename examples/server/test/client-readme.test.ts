// The partner example of @a2a-partner/a2a-client's README (and the same example wherever the repository's
// README shows it), run as written against the real server: the code partners copy first must work. Only
// the placeholder base URL (or A2A_URL, which the repository's README reads) and the token source are swapped.
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import * as clientPackage from "@a2a-partner/a2a-client";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { serverPerSuite } from "./support/server-per-suite.ts";

const require = createRequire(import.meta.url);
const PLACEHOLDER_URL = '"https://robots.example.com"';
const IMPORT = /^import \{([^}]+)\} from "@a2a-partner\/a2a-client";\n/m;

/**
 * The TypeScript blocks of a markdown file that import A2AClient (and nothing else: the gRPC example, which
 * needs its own entry and a gRPC server, runs in docs/examples/snippets-run.test.ts) and talk to the
 * placeholder server.
 */
function partnerExamples(file: string): string[] {
  if (!existsSync(file)) return [];
  return [...readFileSync(file, "utf8").matchAll(/```ts[^\n]*\n([\s\S]*?)```/g)]
    .map((match) => match[1] as string)
    .filter(
      (block) =>
        IMPORT.test(block) &&
        block.match(/^import /gm)?.length === 1 &&
        block.includes("A2AClient") &&
        (block.includes(PLACEHOLDER_URL) || block.includes("process.env.A2A_URL")),
    );
}

const packageReadme = join(dirname(require.resolve("@a2a-partner/a2a-client/package.json")), "README.md");
const rootReadme = fileURLToPath(new URL("../../../README.md", import.meta.url));
const examples: Array<[string, string]> = [
  // The package README must have one, first under "## Example".
  ["packages/a2a-client/README.md", partnerExamples(packageReadme)[0] ?? ""],
  ...partnerExamples(rootReadme).map((block, i) => [`README.md #${i + 1}`, block] as [string, string]),
];

type AsyncFn = (...args: unknown[]) => Promise<void>;
const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor as new (...source: string[]) => AsyncFn;

describe("the README examples of A2AClient against the reference server (PGlite)", () => {
  const suite = serverPerSuite("pglite");

  it("finds the example in both READMEs", () => {
    expect(examples.map(([where]) => where)).toEqual(["packages/a2a-client/README.md", "README.md #1"]);
  });

  it.each(examples)(
    "the example in %s runs as written: it logs the start, robot progress and the outcome",
    async (_, source) => {
      expect(source, "a ts block importing A2AClient and using the placeholder URL").toContain("A2AClient");
      expect(source).toContain("process.env.A2A_TOKEN");

      // Everything it imports is exported by the package.
      const imported = (IMPORT.exec(source)?.[1] ?? "").split(",").map((name) => name.trim());
      expect(imported).toContain("A2AClient");
      const exports = clientPackage as Record<string, unknown>;
      for (const name of imported) expect(exports[name], `export ${name}`).toBeDefined();

      const body = source.replace(IMPORT, "").replace(PLACEHOLDER_URL, JSON.stringify(suite.server.url));
      const js = ts.transpileModule(body, {
        compilerOptions: { target: ts.ScriptTarget.ES2023, module: ts.ModuleKind.ESNext },
      }).outputText;
      const logs: unknown[][] = [];
      const console = { log: (...args: unknown[]) => logs.push(args) };
      const process = { env: { A2A_TOKEN: suite.server.seeded.partnerToken, A2A_URL: suite.server.url } };
      const run = new AsyncFunction(...imported, "console", "process", js);
      await run(...imported.map((name) => exports[name]), console, process);

      expect(logs[0]?.[0]).toBe("started");
      const taskId = logs[0]?.[1] as string;
      expect(taskId).toMatch(/^[0-9a-f-]{36}$/);
      const progress = logs.slice(1, -1).map(([metadata]) => metadata as Record<string, unknown> | undefined);
      expect(
        progress.filter((m) => typeof m?.robot === "string" && typeof m.percent === "number").length,
      ).toBeGreaterThanOrEqual(3);
      expect(logs.at(-1)).toEqual(["ended", "completed"]);

      const { rows } = await suite.database.db.query<{ state: string }>("select state from tasks where id = $1", [
        taskId,
      ]);
      expect(rows[0]?.state).toBe("completed");
    },
  );
});
