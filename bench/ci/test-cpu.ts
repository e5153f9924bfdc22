/**
 * Where the main test run's CPU goes, file by file: runs `vitest run` (the README's main run, with
 * CI=true so nothing skips) with a setup file that reads each file's CPU, then prints the totals and the
 * files that cost most. The run is CPU-bound on two cores, so CPU, not a file's wall time, is what a
 * change to CI time has to cut (bench/NOTES.md, "CI time"). Linux only.
 *
 *   node bench/ci/test-cpu.ts [--top 30] [vitest filters…]
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const TICKS_PER_SECOND = 100;

const args = process.argv.slice(2);
const topAt = args.indexOf("--top");
const top = topAt >= 0 ? Number(args.splice(topAt, 2)[1]) : 30;

const dir = mkdtempSync(join(tmpdir(), "a2a-test-cpu-"));
const out = join(dir, "files.jsonl");
const started = performance.now();
const run = spawnSync(
  "npx",
  ["vitest", "run", "--config", "bench/ci/vitest.file-cpu.config.ts", "--reporter=dot", ...args],
  { cwd: ROOT, stdio: ["ignore", "inherit", "inherit"], env: { ...process.env, CI: "true", A2A_FILE_CPU_OUT: out } },
);
const wallSeconds = (performance.now() - started) / 1000;

interface FileCpu {
  file: string;
  before: number;
  own: number;
  children: number;
}
const written = existsSync(out) ? readFileSync(out, "utf8").trim() : "";
rmSync(dir, { recursive: true, force: true });
if (!written) {
  console.error("no test file reported its CPU (did the filters match any, and did Vitest start?)");
  process.exit(run.status || 1);
}
const rows = written.split("\n").map((line) => JSON.parse(line) as FileCpu);

const seconds = (ticks: number) => (ticks / TICKS_PER_SECOND).toFixed(1).padStart(6);
const total = (row: FileCpu) => row.before + row.own + row.children;
const sum = (pick: (row: FileCpu) => number) => rows.reduce((acc, row) => acc + pick(row), 0);
const cpu = sum(total);
console.log(
  `\n${rows.length} files, ${wallSeconds.toFixed(0)} s wall, ${seconds(cpu).trim()} s of CPU ` +
    `(${((cpu / TICKS_PER_SECOND / wallSeconds) * 100).toFixed(0)} % of a core): ` +
    `before the first hook ${seconds(sum((r) => r.before)).trim()} s, the workers ${seconds(sum((r) => r.own)).trim()} s, ` +
    `their children ${seconds(sum((r) => r.children)).trim()} s`,
);
console.log("\n  total  before   own  children  file");
for (const row of rows.sort((a, b) => total(b) - total(a)).slice(0, top)) {
  console.log(
    `${seconds(total(row))}  ${seconds(row.before)} ${seconds(row.own)} ${seconds(row.children)}    ${relative(ROOT, row.file)}`,
  );
}
process.exitCode = run.status ?? 1;
