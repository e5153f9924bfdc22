/**
 * The servers under test, each a real child process on this machine: our reference server against a
 * fresh PostgreSQL database (one instance, or two sharing it), or as `pnpm start` ships it on a fresh
 * embedded PGlite directory, and the official-SDK server (sdk-server.ts) with its default in-memory
 * store or its own PostgreSQL store. Each target is started twice: a "load" process with 1 ms robot
 * steps (start latency, tasks/s, GetTask) and a "streams" process whose robots never progress (idle
 * streams on tasks that stay `working`).
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  createPgliteStore,
  createPostgresStore,
  type ProcessStore,
  seedWithCli,
  startServerProcess,
} from "../../examples/server/test/support/server-process.ts";
import { releaseCheckout } from "../../scripts/release-checkout.ts";
import { LISTENING_MESSAGE } from "./announce-listening.ts";
import { type Dialect, oursDialect, oursRestDialect, sdkDialect } from "./dialects.ts";
import { disposedOnSignal } from "./dispose-on-signal.ts";
import { inspectorUrl } from "./inspector.ts";
import { otlpTracesEnv, startOtlpSink } from "./otlp-sink.ts";

export type TargetId =
  | "ours"
  | "ours-rest"
  | "ours-grpc"
  | "ours-grpc-base"
  | "ours-embedded"
  | "ours-2x"
  | "ours-lean"
  | "ours-otel"
  | "ours-otel-sampled"
  | "ours-otel-metrics"
  | "ours-v8-heap"
  | "ours-base"
  | "ours-embedded-base"
  | "sdk"
  | "sdk-pg"
  | "sdk-grpc"
  | "floor-durable"
  | "floor-durable-embedded";
export type ProcessRole = "load" | "streams";

export interface RunningServer {
  origin: string;
  pid: number;
  /** The DevTools URL when started with `inspect` (to force a GC and read the heap from outside). */
  inspector: string | undefined;
  /** `host:port` of the process's gRPC server, on a target loaded over gRPC. */
  grpcAddress?: string;
  /**
   * SIGKILL by default: the databases are dropped afterwards, and a graceful stop would end every task
   * first. SIGTERM when a CPU profile must be written on exit.
   */
  kill(signal?: "SIGKILL" | "SIGTERM"): Promise<void>;
}

export interface Target {
  id: TargetId;
  label: string;
  store: string;
  /** Its store is the PostgreSQL server on this host (embedded or in memory: not). */
  onPostgres: boolean;
  dialect: Dialect;
  path: string;
  /**
   * Server processes to run side by side on the target's one store (2 for `ours-2x`, else 1): `start`
   * may be called that many times, and the load is split between them.
   */
  instances: number;
  /**
   * Set on a target loaded over A2A's gRPC binding (`ours-grpc`, `sdk-grpc`): the credential metadata
   * and the store a new task names. Its processes serve gRPC on `grpcAddress`.
   */
  grpc?: { metadata: Record<string, string>; storeId: string };
  /** It answers streaming starts only (the durable floors): no GetTask, no idle streams, no SendMessage. */
  startsOnly?: boolean;
  start(role: ProcessRole, options?: StartOptions): Promise<RunningServer>;
  /**
   * A server that answers a blocking SendMessage (send-message.ts), with load-role steps: the SDK's own
   * server; for `ours` and `ours-embedded` an agent on the same packages with SendMessage on
   * (ours-agent-server.ts) on a store of the same kind, its own (the reference server answers -32004, by
   * contract). Absent on the targets that have no such server (the variants, gRPC, ×2, a base checkout).
   */
  startSendMessage?(options?: StartOptions): Promise<RunningServer>;
  dispose(): Promise<void>;
}

export interface StartOptions {
  /** Start the process with `--inspect=127.0.0.1:0` (a Node flag for the bench, not a product feature). */
  inspect?: boolean;
  /** Write a V8 CPU profile of the process into this folder when it exits (`--cpu-prof`). */
  cpuProfileDir?: string;
  /** The profile's sampling interval in µs (V8's default is 1,000). */
  cpuProfileIntervalUs?: number;
  /** More NODE_OPTIONS for an investigation (e.g. `--import` of a timing hook). */
  nodeOptions?: readonly string[];
}

export function nodeOptions(options: StartOptions | undefined): Record<string, string> {
  const flags = [
    ...(options?.inspect ? ["--inspect=127.0.0.1:0"] : []),
    ...(options?.cpuProfileDir ? ["--cpu-prof", `--cpu-prof-dir=${options.cpuProfileDir}`] : []),
    ...(options?.cpuProfileDir && options.cpuProfileIntervalUs
      ? [`--cpu-prof-interval=${options.cpuProfileIntervalUs}`]
      : []),
    ...(options?.nodeOptions ?? []),
  ];
  return flags.length > 0 ? { NODE_OPTIONS: flags.join(" ") } : {};
}

/** Robot step per role: 1 ms to run tasks to the end quickly, an hour to keep them `working`. */
export const STEP_MS: Record<ProcessRole, string> = { load: "1", streams: "3600000" };

const A2A_PATH = "/api/v1/a2a";
/** V8's own largest semi-space on a host with a 2 GiB old-space limit or more (heap-defaults.ts). */
const V8_OWN_SEMI_SPACE = "--max-semi-space-size=64";

export async function createTarget(id: TargetId): Promise<Target> {
  if (id === "sdk" || id === "sdk-pg" || id === "sdk-grpc") return disposedOnSignal(await sdk(id));
  if (id === "floor-durable" || id === "floor-durable-embedded") return disposedOnSignal(await durableFloor(id));
  return disposedOnSignal(await ours(id));
}

const LEAN_SERVER = fileURLToPath(new URL("./ours-lean-server.ts", import.meta.url));
const AGENT_SERVER = fileURLToPath(new URL("./ours-agent-server.ts", import.meta.url));

const DURABLE_FLOOR_SERVER = fileURLToPath(new URL("./durable-floor-server.ts", import.meta.url));

type OursId = Exclude<TargetId, "sdk" | "sdk-pg" | "sdk-grpc" | "floor-durable" | "floor-durable-embedded">;

const OURS_VARIANTS: Record<OursId, { label: string; store: string }> = {
  ours: { label: "ours", store: "PostgreSQL" },
  "ours-rest": { label: "ours, HTTP+JSON", store: "PostgreSQL, the same server over its HTTP+JSON binding" },
  "ours-grpc": {
    label: "ours, gRPC",
    store: "PostgreSQL, the same server started with GRPC_PORT and loaded over gRPC (@grpc/grpc-js, one channel)",
  },
  "ours-grpc-base": {
    label: "ours, gRPC (base checkout)",
    store: "PostgreSQL, as ours, gRPC but the server of the checkout A2A_BENCH_BASE names (before/after a change)",
  },
  "ours-embedded": {
    label: "ours (embedded)",
    store: "embedded PGlite, as `pnpm start` ships it (no DATABASE_URL, fresh DATA_DIR)",
  },
  "ours-2x": { label: "ours ×2", store: "two server processes on one PostgreSQL database" },
  "ours-lean": { label: "ours, no fleet", store: "PostgreSQL, the SDK twin's executor instead of the robot fleet" },
  "ours-v8-heap": {
    label: "ours, V8's heap sizing",
    store:
      "PostgreSQL, as ours but with V8's own heap sizing (--max-semi-space-size=64: serve leaves an operator's flags)",
  },
  "ours-otel-metrics": {
    label: "ours + OpenTelemetry metrics",
    store: "PostgreSQL, OpenTelemetry SDK on with metrics only: a Prometheus reader (METRICS_PORT), no traces",
  },
  "ours-otel-sampled": {
    label: "ours + OpenTelemetry, 10 % of traces",
    store: "PostgreSQL, as ours + OpenTelemetry but OTEL_TRACES_SAMPLER=parentbased_traceidratio at 0.1",
  },
  "ours-base": {
    label: "ours (base checkout)",
    store: "PostgreSQL, the server of the checkout A2A_BENCH_BASE names (before/after a change)",
  },
  "ours-embedded-base": {
    label: "ours (embedded, base checkout)",
    store: "embedded PGlite, the server of the checkout A2A_BENCH_BASE names",
  },
  "ours-otel": {
    label: "ours + OpenTelemetry",
    store: "PostgreSQL, OpenTelemetry SDK on: Prometheus reader (METRICS_PORT) and every span exported over OTLP",
  },
};

/**
 * Our server (`src/cli.ts serve`) on a store of its own, seeded with the CLI before any process starts:
 * a PostgreSQL database (`ours`, `ours-2x`: two processes on it), a PGlite directory in a temp folder
 * (`ours-embedded`), or with `ours-lean` the same app on the SDK twin's executor (no fleet).
 */
async function ours(id: OursId): Promise<Target> {
  const embedded = id === "ours-embedded" || id === "ours-embedded-base";
  const store: ProcessStore = embedded ? await createPgliteStore() : await createPostgresStore();
  // A before-and-after run: `ours-base` and `ours-embedded-base` start the server of another checkout
  // (built, installed), e.g. \`git worktree add ../base <commit> && (cd ../base && pnpm install)\`.
  const serverDir = id.endsWith("-base") ? await baseServerDir() : undefined;
  // `ours-otel`: what the instrumentation costs with an SDK registered. Metrics go to a Prometheus reader
  // (not scraped during the load), spans (all sampled) to an OTLP receiver in this process that accepts
  // and discards them, so the server pays for recording, batching and serialising every span.
  const sink = id === "ours-otel" || id === "ours-otel-sampled" ? await startOtlpSink() : undefined;
  // The SendMessage agent's store: made on first use, of the target's kind, dropped with the target.
  let agentStore: ProcessStore | undefined;
  const startSendMessage = async (options?: StartOptions): Promise<RunningServer> => {
    agentStore ??= embedded ? await createPgliteStore() : await createPostgresStore();
    return startScriptServer(AGENT_SERVER, {
      ...agentStore.env,
      ...nodeOptions(options),
      STEP_MS: STEP_MS.load,
      PORT: "0",
    });
  };
  try {
    const seeded = await seedWithCli(store.env, serverDir);
    const env = {
      ...store.env,
      RATE_LIMIT_PER_SECOND: "0",
      MAX_STREAMS_PER_TOKEN: "0",
      ...(id === "ours-otel-metrics" ? { METRICS_PORT: "0" } : {}),
      ...(sink
        ? { METRICS_PORT: "0", ...otlpTracesEnv(sink.url, id === "ours-otel-sampled" ? "0.1" : undefined) }
        : {}),
    };
    return {
      id,
      ...OURS_VARIANTS[id],
      onPostgres: !embedded,
      dialect: (id === "ours-rest" ? oursRestDialect : oursDialect)(seeded.partnerToken, seeded.storeId),
      ...(id === "ours" || id === "ours-embedded" ? { startSendMessage } : {}),
      path: A2A_PATH,
      instances: id === "ours-2x" ? 2 : 1,
      ...(id === "ours-grpc" || id === "ours-grpc-base"
        ? {
            grpc: {
              metadata: { authorization: `Bearer ${seeded.partnerToken}`, "a2a-version": "1.0" },
              storeId: seeded.storeId,
            },
          }
        : {}),
      async start(role, options) {
        if (id === "ours-lean") {
          return startScriptServer(LEAN_SERVER, { ...env, ...nodeOptions(options), STEP_MS: STEP_MS[role], PORT: "0" });
        }
        const grpcPort = id === "ours-grpc" || id === "ours-grpc-base" ? await freePort() : undefined;
        const server = await startServerProcess(
          {
            ...env,
            ...(grpcPort === undefined ? {} : { GRPC_PORT: String(grpcPort), GRPC_HOST: "127.0.0.1" }),
            // `ours-v8-heap`: any heap flag of the operator's turns serve's own heap defaults off.
            ...nodeOptions(
              id === "ours-v8-heap"
                ? { ...options, nodeOptions: [V8_OWN_SEMI_SPACE, ...(options?.nodeOptions ?? [])] }
                : options,
            ),
            ROBOT_STEP_MS: STEP_MS[role],
            LOG_LEVEL: "info", // the helper finds the URL in the info-level "listening" line
          },
          { ...(serverDir === undefined ? {} : { serverDir }), stderrFile: serverLogFile(id) },
        );
        return {
          origin: server.url,
          pid: server.pid,
          inspector: options?.inspect ? inspectorUrl(server.log()) : undefined,
          ...(grpcPort === undefined ? {} : { grpcAddress: `127.0.0.1:${grpcPort}` }),
          kill: async (signal = "SIGKILL") => {
            await server.kill(signal);
          },
        };
      },
      dispose: async () => {
        await sink?.close();
        await agentStore?.drop();
        await store.drop();
      },
    };
  } catch (error) {
    await sink?.close();
    await store.drop();
    throw error;
  }
}

// The SDK resolves from the reference server, whose devDependency it is.
const require = createRequire(new URL("../../examples/server/package.json", import.meta.url));
const SDK_SERVER = fileURLToPath(new URL("./sdk-server.ts", import.meta.url));

async function sdk(id: "sdk" | "sdk-pg" | "sdk-grpc"): Promise<Target> {
  const durable = id === "sdk-pg";
  let store: ProcessStore | undefined;
  if (durable) {
    store = await createPostgresStore();
    // The SDK's own migration tool (`a2a-db upgrade`), as its persistent-stores guide says.
    const cli = join(dirname(require.resolve("@a2a-js/sdk")), "cli", "a2a_db.js");
    const url = store.env.DATABASE_URL as string;
    const migrated = await runNode([cli, "upgrade", "--url", url], {});
    if (migrated.code !== 0) {
      await store.drop();
      throw new Error(`a2a-db upgrade failed: ${migrated.output}`);
    }
  }
  const target: Target = {
    id,
    label: { sdk: "SDK", "sdk-pg": "SDK (PostgreSQL)", "sdk-grpc": "SDK, gRPC" }[id],
    onPostgres: durable,
    store: durable
      ? "PostgreSQL (DatabaseTaskStore)"
      : id === "sdk-grpc"
        ? "in-memory, the same server with the SDK's gRPC service (@a2a-js/sdk/server/grpc) on GRPC_PORT"
        : "in-memory (InMemoryTaskStore, default)",
    dialect: sdkDialect("store-001"),
    path: A2A_PATH,
    instances: 1,
    ...(id === "sdk-grpc" ? { grpc: { metadata: { "a2a-version": "1.0" }, storeId: "store-001" } } : {}),
    async start(role, options) {
      const grpcPort = id === "sdk-grpc" ? await freePort() : undefined;
      const server = await startScriptServer(SDK_SERVER, {
        ...nodeOptions(options),
        ...(grpcPort === undefined ? {} : { GRPC_PORT: String(grpcPort) }),
        STEP_MS: STEP_MS[role],
        STORE: durable ? "postgres" : "memory",
        ...(store ? { DATABASE_URL: store.env.DATABASE_URL as string } : {}),
      });
      return grpcPort === undefined ? server : { ...server, grpcAddress: `127.0.0.1:${grpcPort}` };
    },
    dispose: async () => {
      await store?.drop();
    },
  };
  // The SDK's server serves SendMessage itself (over HTTP; the gRPC target is not loaded with it).
  if (id !== "sdk-grpc") target.startSendMessage = (options) => target.start("load", options);
  return target;
}

/**
 * The least a durable server can do (durable-floor-server.ts): each event committed before its frame
 * through a group commit, nothing else; on PostgreSQL (`floor-durable`) or on the embedded store
 * (`floor-durable-embedded`: PGlite in a worker thread, as the reference server opens it). Its first
 * event is the floor as a server meets it, its tasks/s what durability alone allows on that store; it
 * answers starts only (no GetTask, no streams phase).
 */
async function durableFloor(id: "floor-durable" | "floor-durable-embedded"): Promise<Target> {
  const embedded = id === "floor-durable-embedded";
  const store = embedded ? await createPgliteStore({ migrated: false }) : await createPostgresStore();
  return {
    id,
    label: embedded ? "durable floor, embedded" : "durable floor",
    onPostgres: !embedded,
    store: embedded
      ? "embedded PGlite (worker thread), one connection: bare node:http group-committing each event before its frame"
      : "PostgreSQL, one connection: bare node:http group-committing each event before its frame",
    dialect: sdkDialect("store-001"),
    path: A2A_PATH,
    instances: 1,
    startsOnly: true,
    start: (role, options) =>
      startScriptServer(DURABLE_FLOOR_SERVER, {
        ...nodeOptions(options),
        ...store.env,
        STEP_MS: STEP_MS[role],
      }),
    dispose: () => store.drop(),
  };
}

/**
 * Starts a bench server script (sdk-server.ts, floor-server.ts, durable-floor-server.ts) and waits for its
 * "listening" line.
 */
export async function startScriptServer(script: string, env: Record<string, string>): Promise<RunningServer> {
  const child = spawn(process.execPath, [script], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, PORT: "0", ...env },
    stdio: ["ignore", "ignore", "pipe"],
  });
  // Killed if this process exits first; the hook goes with the child (a run starts dozens of servers).
  const killOnExit = () => child.kill("SIGKILL");
  process.once("exit", killOnExit);
  const exited = new Promise<void>((resolve) =>
    child.once("exit", () => {
      process.off("exit", killOnExit);
      resolve();
    }),
  );
  let log = "";
  let listening = false;
  let inspector: string | undefined;
  const origin = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${script} did not start within 60 s:\n${log}`));
      // The SendMessage agent on a fresh PGlite directory runs initdb and migrations in WASM first: over
      // 20 s on a loaded two-core host.
    }, 60_000);
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk: string) => {
      log += chunk;
      inspector ??= inspectorUrl(log);
      if (log.length > 100_000) log = log.slice(-10_000); // keep the tail for error messages only
      if (listening) return;
      for (const line of log.split("\n")) {
        try {
          const entry = JSON.parse(line) as { msg?: string; url?: string };
          if (entry.msg === LISTENING_MESSAGE && entry.url) {
            clearTimeout(timer);
            listening = true;
            resolve(entry.url);
          }
        } catch {
          // not a whole JSON line (yet)
        }
      }
    });
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`${script} exited before listening:\n${log}`));
    });
  });
  return {
    origin,
    pid: child.pid as number,
    inspector,
    kill: async (signal = "SIGKILL") => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}

let serverLogs: string | undefined;

/**
 * Where a server of ours writes its log: a file, not a pipe into this process, whose log line per task
 * start and end would wake the load generator being timed. Removed when this process exits.
 */
function serverLogFile(id: string): string {
  if (serverLogs === undefined) {
    const dir = mkdtempSync(join(tmpdir(), "a2a-bench-logs-"));
    serverLogs = dir;
    process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
  }
  return join(serverLogs, `${id}-${process.hrtime.bigint()}.log`);
}

/** A port free on 127.0.0.1 now (a gRPC port is given to a server, not read back from its log). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      const port = typeof address === "object" && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

function runNode(args: string[], env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk) => {
      output += chunk;
    });
    child.stderr.on("data", (chunk) => {
      output += chunk;
    });
    child.once("exit", (code) => resolve({ code, output }));
  });
}

/**
 * The base's examples/server, from A2A_BENCH_BASE: the root of another checkout (installed and built), or
 * a commit of this clone (`main`, `HEAD~3`, a hash), exported and built once by scripts/release-checkout.ts.
 */
async function baseServerDir(): Promise<string> {
  const base = process.env.A2A_BENCH_BASE;
  if (!base) throw new Error("ours-base needs A2A_BENCH_BASE: a commit of this clone, or another checkout's root");
  const root = existsSync(join(base, "examples", "server")) ? base : await releaseCheckout(base);
  return join(root, "examples", "server");
}
