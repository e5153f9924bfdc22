import { appendFileSync, readFileSync } from "node:fs";
import { afterAll, beforeAll } from "vitest";

/**
 * A setup file for `test-cpu.ts`: appends each test file's CPU to the JSON-lines file named by
 * A2A_FILE_CPU_OUT. Linux only (/proc/self/stat, in clock ticks): the worker's own CPU while the file ran,
 * its children's (the servers and CLIs it started, counted once they exit), and what the worker spent
 * before the file's first hook (its start-up and imports; in a shared worker, since the previous file).
 */
const out = process.env.A2A_FILE_CPU_OUT;

function ticks(): { own: number; children: number } {
  const fields = readFileSync("/proc/self/stat", "utf8").split(")").pop()?.trim().split(/\s+/) ?? [];
  // After the command's ")": state is field 0, utime 11, stime 12, cutime 13, cstime 14.
  return { own: Number(fields[11]) + Number(fields[12]), children: Number(fields[13]) + Number(fields[14]) };
}

const previous = globalThis as { fileCpuLastEnd?: number };
let start = ticks();
let before = 0;
beforeAll(() => {
  start = ticks();
  before = start.own - (previous.fileCpuLastEnd ?? 0);
});
// biome-ignore lint/correctness/noEmptyPattern: Vitest passes the file second and wants the first destructured
afterAll(({}, suite) => {
  const end = ticks();
  previous.fileCpuLastEnd = end.own;
  if (!out) return;
  const file = (suite as { filepath?: string }).filepath;
  const row = { file, before, own: end.own - start.own, children: end.children - start.children };
  appendFileSync(out, `${JSON.stringify(row)}\n`);
});
