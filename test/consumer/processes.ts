/** Child processes for the consumer tests: run one to its end, or start a server and wait until it listens. */
import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Runs `command` in `cwd` to its end (killed after `timeoutMs`, 150 s by default); never rejects on a non-zero exit. */
export function runTo(
  command: string,
  args: string[],
  options: { cwd: string; timeoutMs?: number; env?: NodeJS.ProcessEnv },
): Promise<Finished> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk));
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 150_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: performance.now() - started });
    });
  });
}

/** The last line of stdout as JSON: what the app's scripts print as their result. */
export function lastJsonLine(finished: Finished): unknown {
  const line = finished.stdout.trim().split("\n").at(-1) ?? "";
  try {
    return JSON.parse(line);
  } catch {
    throw new Error(`no JSON result (exit ${finished.code}):\n${finished.stdout}\n${finished.stderr}`);
  }
}

export interface Started {
  child: ChildProcess;
  output: () => string;
  /** Resolves with the exit code once the process has ended. */
  exited: Promise<number | null>;
}

/** Starts a long-running process and resolves once its stdout shows `ready`. */
export function startUntil(
  command: string,
  args: string[],
  ready: RegExp,
  options: { cwd: string; env?: NodeJS.ProcessEnv },
): Promise<Started> {
  const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env });
  let output = "";
  const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not ready after 30 s:\n${output}`)), 30_000);
    const onData = (chunk: Buffer) => {
      output += chunk;
      if (ready.test(output)) {
        clearTimeout(timer);
        resolve({ child, output: () => output, exited });
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", (chunk: Buffer) => (output += chunk));
    void exited.then((code) => reject(new Error(`exited ${code} before it was ready:\n${output}`)));
  });
}

/** A TCP port nobody listens on right now (for a server that must know its own URL before it listens). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}
