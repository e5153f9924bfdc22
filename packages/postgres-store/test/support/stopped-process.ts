import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const packageDir = fileURLToPath(new URL("../..", import.meta.url));

/** A Node process running `script` (an ES module) against the built package, as an application runs it. */
export interface ScriptProcess {
  child: ChildProcess;
  /** The lines it printed so far. */
  said: string[];
  /** Lets it run again if stopped, and kills it. */
  stop(): void;
}

const started: ChildProcess[] = [];

/**
 * Starts `script` with `env` (and PATH alone of the test's environment). The package resolves by its own
 * name from its folder, through its exports map to `dist/`.
 */
export function runScript(script: string, env: Record<string, string>): ScriptProcess {
  const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
    cwd: packageDir,
    env: { PATH: process.env.PATH, ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  started.push(child);
  const said: string[] = [];
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => said.push(...chunk.split("\n").filter(Boolean)));
  return { child, said, stop: () => kill(child) };
}

/** Kills every process `runScript` started (a test that failed before its own `stop`). */
export function killScripts(): void {
  for (const child of started.splice(0)) kill(child);
}

function kill(child: ChildProcess): void {
  child.kill("SIGCONT");
  child.kill("SIGKILL");
}
