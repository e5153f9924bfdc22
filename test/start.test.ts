import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

/** `pnpm <script>` as a user runs it, in its own process group so a signal reaches it as Ctrl-C does. */
function pnpm(script: string, env: Record<string, string>) {
  const child = spawn("pnpm", [script], {
    cwd: ROOT,
    detached: true,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const listening = new Promise<number>((resolve, reject) => {
    const started = performance.now();
    child.stderr.on("data", () => {
      if (output.includes("reference server listening")) resolve(performance.now() - started);
    });
    void exited.then((code) => reject(new Error(`exited ${code} before listening:\n${output}`)));
  });
  return { child, exited, listening, output: () => output };
}

describe("pnpm start", () => {
  let root = "";
  let env: Record<string, string> = {};
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), "a2a-start-"));
    // A new directory, as on a fresh clone: the first start runs initdb and the migrations, which most other
    // suites' servers skip by starting from a copy of the run's template.
    env = { DATA_DIR: join(root, "pglite"), PORT: "0", LOG_LEVEL: "info" };
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    it(`on an unchanged tree builds nothing, and ${signal} ends it with exit 0 and no pnpm error`, async () => {
      const start = pnpm("start", env);
      await start.listening;
      // The signal to the whole group, as a terminal's Ctrl-C (SIGINT) sends it.
      process.kill(-(start.child.pid as number), signal);
      expect({ code: await start.exited, output: start.output() }).toMatchObject({ code: 0 });
      const output = start.output();
      expect(output).not.toMatch(/ELIFECYCLE|ERR_PNPM|Command failed/);
      // Nothing rebuilt (the test run's packages are built): no tsup output, no build line.
      expect(output).not.toMatch(/building the packages|tsup|Build success/i);
    });
  }
});
