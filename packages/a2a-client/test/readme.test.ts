// Every TypeScript block of the README typechecks, strictly, against the package as published (its built
// declarations, imported by the package's own name): an example that drifts from the API fails here.
// examples/server/test/client-readme.test.ts runs the first block against the real server.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const packageDir = join(dirname(fileURLToPath(import.meta.url)), "..");
const readme = readFileSync(join(packageDir, "README.md"), "utf8");
const blocks = [...readme.matchAll(/```ts[^\n]*\n([\s\S]*?)```/g)].map((match) => match[1] as string);

/** Type errors of `source` compiled as an ES module inside this package, with the package's settings. */
function typeErrors(source: string): string[] {
  const configPath = join(packageDir, "tsconfig.json");
  const config = ts.parseJsonConfigFileContent(
    ts.readConfigFile(configPath, ts.sys.readFile).config,
    ts.sys,
    packageDir,
  );
  // A virtual file in test/: the package.json above it makes it ESM (top-level await) and lets it import
  // the package by name, which resolves through `exports` to dist/ as it does for a user.
  const file = join(packageDir, "test", "readme-example.ts");
  const options: ts.CompilerOptions = { ...config.options, noEmit: true, rootDir: packageDir };
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.readFile = (name) => (name === file ? source : readFile(name));
  host.fileExists = (name) => name === file || fileExists(name);
  host.getSourceFile = (name, language, ...rest) =>
    name === file ? ts.createSourceFile(name, source, language) : getSourceFile(name, language, ...rest);
  const program = ts.createProgram([file], options, host);
  return ts
    .getPreEmitDiagnostics(program)
    .map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"))
    .filter((message) => message.length > 0);
}

describe("README", () => {
  it("has TypeScript examples", () => {
    expect(blocks.length).toBeGreaterThan(0);
  });

  it.each(blocks.map((block, i) => [i + 1, block] as const))(
    "example %i typechecks against the built package",
    (_, block) => {
      expect(typeErrors(block)).toEqual([]);
    },
  );

  it("would catch an example that misuses the API", () => {
    const broken = (blocks[0] ?? "").replace("event.task.id", "event.task.taskId");
    expect(broken).not.toBe(blocks[0]);
    expect(typeErrors(broken).join("\n")).toMatch(/taskId/);
  });
});
