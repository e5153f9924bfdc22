/**
 * Runs the checks `pnpm test` makes after the build, two at a time (the type check is the longest and runs
 * on one core; the others share the second), and fails when any of them fails.
 *
 *   node scripts/checks.ts typecheck lint api:check check:cycles check:packages
 *
 * Each is `pnpm run <name>`. Its output is held back and printed whole when it ends, under its name and
 * time, so two checks' lines never interleave; a failing check's output comes with its exit code.
 */
import { spawn } from "node:child_process";

const CONCURRENCY = 2;

interface Outcome {
  name: string;
  code: number | null;
  output: string;
  seconds: number;
}

function run(name: string): Promise<Outcome> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn("pnpm", ["run", "--silent", name], { stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      output += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      output += chunk;
    });
    const finish = (code: number | null) =>
      resolve({ name, code, output, seconds: (performance.now() - started) / 1000 });
    child.once("error", (error) => {
      output += `${error.message}\n`;
      finish(1);
    });
    child.once("close", (code) => finish(code));
  });
}

const names = process.argv.slice(2);
if (names.length === 0) {
  console.error("usage: node scripts/checks.ts <pnpm script> [<pnpm script> …]");
  process.exit(2);
}

const queue = [...names];
const failed: Outcome[] = [];
async function worker(): Promise<void> {
  for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
    const outcome = await run(name);
    const verdict = outcome.code === 0 ? "ok" : `FAILED (exit ${outcome.code})`;
    process.stdout.write(`\n> ${outcome.name}: ${verdict} in ${outcome.seconds.toFixed(1)} s\n${outcome.output}`);
    if (outcome.code !== 0) failed.push(outcome);
  }
}
await Promise.all(Array.from({ length: Math.min(CONCURRENCY, names.length) }, worker));
if (failed.length > 0) {
  console.error(`\nchecks failed: ${failed.map((outcome) => outcome.name).join(", ")}`);
  process.exit(1);
}
