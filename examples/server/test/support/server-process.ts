import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { openSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { decodeSseStream } from "@a2a-partner/a2a-core";
import type { LooseJson } from "@a2a-partner/test-support/loose-json";
import { seedPgliteDataDir } from "@a2a-partner/test-support/pglite-template";
import pg from "pg";
import { afterEach } from "vitest";
import type { SeedResult } from "../../src/seed.ts";
import { POSTGRES_URL } from "./backends.ts";
import { seedMigratedDataDir } from "./migrated-template.ts";
import { envelope } from "./rpc.ts";

/**
 * The reference server as a real child process (`node src/cli.ts serve`), for the tests that kill and
 * restart it. Every process started here is remembered, so `stopAllServerProcesses` (afterEach/afterAll)
 * and, as a last resort, this process's exit hook leave none behind.
 */

const SERVER_DIR = fileURLToPath(new URL("../..", import.meta.url));
const CLI = "src/cli.ts";

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ServerProcess {
  url: string;
  a2aUrl: string;
  pid: number;
  /** When the server logged that it listens (ms, `performance.now()`). */
  readyAt: number;
  /** Settles when the process has exited. */
  exited: Promise<Exit>;
  /** What the process wrote to stderr (its JSON log), for failure messages. */
  log(): string;
  /** Sends the signal and waits for the exit. */
  kill(signal: NodeJS.Signals): Promise<Exit>;
}

const live = new Set<ChildProcess>();
let exitHookInstalled = false;

function track(child: ChildProcess): Promise<Exit> {
  live.add(child);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    // A test run that dies between afterAll hooks must not leave servers holding ports and databases.
    process.once("exit", () => {
      for (const c of live) c.kill("SIGKILL");
    });
  }
  return new Promise<Exit>((resolve) => {
    child.once("exit", (code, signal) => {
      live.delete(child);
      resolve({ code, signal });
    });
  });
}

/** Only what the server needs: the test runner's own variables (DATABASE_URL, NODE_OPTIONS …) stay out. */
function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    TMPDIR: process.env.TMPDIR,
    ...env,
  };
}

/**
 * Starts `node src/cli.ts serve` on an ephemeral port (PORT=0) and resolves once it logs its URL. The
 * "listening" line is logged at info level, so LOG_LEVEL is info unless the caller asks otherwise.
 */
export async function startServerProcess(
  env: Record<string, string>,
  options: {
    startTimeoutMs?: number;
    serverDir?: string;
    /** Node's own flags before the script (the V8 flags NODE_OPTIONS refuses, e.g. --trace-gc); benches only. */
    nodeArgs?: readonly string[];
    /** A file the process's stdout goes to (where V8's traces are printed); by default it is dropped. */
    stdoutFile?: string;
    /**
     * A file the process's stderr (its JSON log) goes to instead of a pipe this process reads: for benches,
     * where reading a log line per task would wake the load generator being timed, and keep every line.
     */
    stderrFile?: string;
  } = {},
): Promise<ServerProcess> {
  const { stderrFile } = options;
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), CLI, "serve"], {
    // serverDir: another checkout's examples/server (the bench's before-and-after runs); default this one.
    cwd: options.serverDir ?? SERVER_DIR,
    env: childEnv({ PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "info", ...env }),
    stdio: [
      "ignore",
      options.stdoutFile ? openSync(options.stdoutFile, "w") : "ignore",
      stderrFile ? openSync(stderrFile, "w") : "pipe",
    ],
  });
  const exited = track(child);
  let piped = "";
  const stderr = (): string => (stderrFile ? readFileSync(stderrFile, "utf8") : piped);
  // Generous: on a busy 2-core machine an embedded store's start (WASM compile, migrations) can take
  // tens of seconds while other suites spawn servers too; only a server that never starts waits it out.
  const startTimeoutMs = options.startTimeoutMs ?? 60_000;
  const url = await new Promise<string>((resolve, reject) => {
    let pending = "";
    const timer = setTimeout(() => {
      clearInterval(poll);
      child.kill("SIGKILL");
      reject(new Error(`the server did not start within ${startTimeoutMs} ms:\n${stderr()}`));
    }, startTimeoutMs);
    const found = (url: string) => {
      clearTimeout(timer);
      clearInterval(poll);
      resolve(url);
    };
    // A file is read again until the line is there; a pipe is read as it comes.
    const poll = stderrFile
      ? setInterval(() => {
          const url = stderr().split("\n").map(listeningUrl).find(Boolean);
          if (url) found(url);
        }, 20)
      : undefined;
    child.stderr?.setEncoding("utf8");
    child.stderr?.on("data", (chunk: string) => {
      piped += chunk;
      pending += chunk;
      const lines = pending.split("\n");
      pending = lines.pop() ?? "";
      for (const line of lines) {
        const url = listeningUrl(line);
        if (url) found(url);
      }
    });
    void exited.then((exit) => {
      clearTimeout(timer);
      clearInterval(poll);
      reject(new Error(`the server exited (${exit.code ?? exit.signal}) before listening:\n${stderr()}`));
    });
  });
  return {
    url,
    a2aUrl: `${url}/api/v1/a2a`,
    pid: child.pid as number,
    readyAt: performance.now(),
    exited,
    log: stderr,
    kill(signal) {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

function listeningUrl(line: string): string | undefined {
  try {
    const entry = JSON.parse(line) as { msg?: unknown; url?: unknown };
    return entry.msg === "reference server listening" && typeof entry.url === "string" ? entry.url : undefined;
  } catch {
    return undefined;
  }
}

/** SIGKILLs every server process still running and waits until they are gone. */
export async function stopAllServerProcesses(): Promise<void> {
  const children = [...live];
  await Promise.all(
    children.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once("exit", () => resolve());
          child.kill("SIGKILL");
        }),
    ),
  );
}

/** Runs one CLI command (`seed`, `migrate`, `token …`) to completion; `input` is written to its stdin. */
export async function runCli(
  args: string[],
  env: Record<string, string>,
  options: { input?: string; serverDir?: string } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: options.serverDir ?? SERVER_DIR,
    env: childEnv({ LOG_LEVEL: "warn", ...env }),
    stdio: [options.input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
  });
  child.stdin?.end(options.input);
  const exited = track(child);
  let stdout = "";
  let stderr = "";
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
  });
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  const { code } = await exited;
  return { code, stdout, stderr };
}

/** `node src/cli.ts seed`: the demo workspace, its Environment and robots, and fresh tokens. */
export async function seedWithCli(env: Record<string, string>, serverDir?: string): Promise<SeedResult> {
  const result = await runCli(["seed"], env, serverDir === undefined ? {} : { serverDir });
  if (result.code !== 0) throw new Error(`seed failed (${result.code}): ${result.stderr}`);
  return JSON.parse(result.stdout.trim().split("\n").at(-1) ?? "") as SeedResult;
}

/** Where a server process keeps its data: the env that points it there, and how to remove it. */
export interface ProcessStore {
  env: Record<string, string>;
  drop(): Promise<void>;
}

/**
 * A PGlite data directory in a fresh temporary folder (its control socket lands beside it, in `pglite.run`):
 * the run's template with the reference schema migrated copied in (migrated-template.ts), so the server or
 * CLI finds nothing to apply; with `{ migrated: false }` the empty template, which the first open migrates.
 */
export async function createPgliteStore(
  options: { migrated?: boolean } = {},
): Promise<ProcessStore & { dataDir: string }> {
  const root = await mkdtemp(join(tmpdir(), "a2a-server-process-"));
  const dataDir = join(root, "pglite");
  await (options.migrated === false ? seedPgliteDataDir(dataDir) : seedMigratedDataDir(dataDir));
  return {
    dataDir,
    env: { DATA_DIR: dataDir },
    drop: () => rm(root, { recursive: true, force: true }),
  };
}

/**
 * For a describe block whose tests each want fresh PGlite directories: call it at the top of the block,
 * then the function it returns in a test. After each test its server processes stop and its directories go.
 */
export function pgliteStorePerTest(): () => Promise<ProcessStore & { dataDir: string }> {
  const stores: ProcessStore[] = [];
  afterEach(async () => {
    await stopAllServerProcesses();
    for (const store of stores.splice(0)) await store.drop();
  });
  return async () => {
    const store = await createPgliteStore();
    stores.push(store);
    return store;
  };
}

/**
 * A fresh DATABASE on the real PostgreSQL (the CLI reads only DATABASE_URL, so a database of its own is
 * the way to keep a test file's rows apart), with a pool for the test's own queries. `drop` removes it.
 */
export async function createPostgresStore(): Promise<ProcessStore & { url: string; pool: pg.Pool }> {
  const name = `a2a_proc_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${name}`;
  const pool = new pg.Pool({ connectionString: url.toString(), max: 3 });
  pool.on("error", () => undefined);
  return {
    url: url.toString(),
    pool,
    env: { DATABASE_URL: url.toString() },
    async drop() {
      await pool.end();
      const cleanup = new pg.Client({ connectionString: POSTGRES_URL });
      await cleanup.connect();
      try {
        // `with (force)` ends connections a killed server process may have left for the backend to notice.
        await cleanup.query(`drop database if exists ${name} with (force)`);
      } finally {
        await cleanup.end();
      }
    },
  };
}

/**
 * How much later `to` got each event that `from` got once `to` was open (50 ms on), in ms: the delivery
 * lag between two processes' streams of one task.
 */
export function deliveryLags(from: TimedFrame[], to: TimedFrame[]): number[] {
  const openedAt = to[0]?.at as number;
  return from
    .filter((f) => f.event !== "final" && f.at > openedAt + 50)
    .map((f) => (to.find((g) => g.id === f.id && g.event === f.event)?.at ?? Infinity) - f.at);
}

export interface TimedFrame {
  id: string | undefined;
  event: string;
  result: LooseJson;
  /** When the frame arrived (ms, `performance.now()`). */
  at: number;
}

export interface StreamRecorder {
  frames: TimedFrame[];
  /** Settles (never rejects) when the response ends: cleanly, or with the error that broke it. */
  done: Promise<{ error?: unknown; at: number }>;
  /** Resolves with the first frame (already received or still to come) that matches, else rejects. */
  until(match: (frame: TimedFrame, all: TimedFrame[]) => boolean, timeoutMs?: number): Promise<TimedFrame>;
  /** Drops the connection (a client going away). */
  close(): void;
}

/**
 * Sends a streaming JSON-RPC request and records its SSE frames in the background, each with its arrival
 * time, so a test can act mid-stream (kill the server, cancel elsewhere) and measure delivery.
 */
export async function openStream(
  url: string,
  token: string,
  method: string,
  params: unknown,
  headers: Record<string, string> = {},
): Promise<StreamRecorder> {
  const controller = new AbortController();
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}`, ...headers },
    body: JSON.stringify(envelope(method, params)),
    signal: controller.signal,
  });
  if (res.status !== 200 || !res.headers.get("content-type")?.startsWith("text/event-stream") || !res.body) {
    throw new Error(`expected an SSE stream, got ${res.status}: ${await res.text()}`);
  }
  const frames: TimedFrame[] = [];
  const watchers = new Set<() => void>();
  const body = res.body;
  let ended = false;
  const done = (async () => {
    try {
      for await (const event of decodeSseStream(body)) {
        frames.push({ id: event.id, event: event.event, result: JSON.parse(event.data).result, at: performance.now() });
        for (const watcher of watchers) watcher();
      }
      return { at: performance.now() };
    } catch (error) {
      return { error, at: performance.now() };
    } finally {
      ended = true;
      for (const watcher of watchers) watcher();
    }
  })();
  return {
    frames,
    done,
    close: () => controller.abort(),
    until(match, timeoutMs = 10_000) {
      return new Promise<TimedFrame>((resolve, reject) => {
        const check = () => {
          const found = frames.find((frame) => match(frame, frames));
          if (found) finish(() => resolve(found));
          else if (ended) finish(() => reject(new Error(`the stream ended without the frame: ${describe(frames)}`)));
        };
        const timer = setTimeout(
          () => finish(() => reject(new Error(`no such frame within ${timeoutMs} ms: ${describe(frames)}`))),
          timeoutMs,
        );
        const finish = (settle: () => void) => {
          clearTimeout(timer);
          watchers.delete(onChange);
          settle();
        };
        const onChange = () => check();
        watchers.add(onChange);
        check();
      });
    },
  };
}

function describe(frames: TimedFrame[]): string {
  return JSON.stringify(frames.map((f) => `${f.id}:${f.event}:${f.result?.status?.state ?? f.result?.kind ?? ""}`));
}

/** Polls until `check` returns a value (not undefined) or the time is up. */
export async function eventually<T>(
  check: () => Promise<T | undefined>,
  { timeoutMs, intervalMs = 100, what }: { timeoutMs: number; intervalMs?: number; what: string },
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** The text of a status message (`status.message.parts[*].text`). */
export function statusText(status: LooseJson): string | undefined {
  const parts: unknown = status?.message?.parts;
  if (!Array.isArray(parts)) return undefined;
  return parts
    .filter((p): p is { kind: "text"; text: string } => p?.kind === "text" && typeof p.text === "string")
    .map((p) => p.text)
    .join("");
}
