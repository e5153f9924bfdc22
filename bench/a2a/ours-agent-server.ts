/**
 * The SendMessage phase's server for `ours` (`pnpm bench:a2a --phases send-message`, send-message.ts): an
 * agent on the core with SendMessage on (the reference server turns it off, its contract), and the SDK
 * twin's executor (sdk-server.ts): a status per step after STEP_MS, an artifact, `completed`. Any bearer
 * is admitted. Its stores: PostgreSQL at DATABASE_URL, else PGlite in DATA_DIR, else PGlite in memory.
 * Env: PORT, STEP_MS, STEPS, DATABASE_URL, DATA_DIR. Logs
 * `{"msg":"bench server listening","url":…}` on stderr once it listens.
 */
import { createServer } from "node:http";
import { listenAndAnnounce } from "./announce-listening.ts";
import { sleepUnlessAborted } from "./sleep-unless-aborted.ts";

const core = (await import(
  "../../packages/a2a-core/dist/index.js"
)) as typeof import("../../packages/a2a-core/dist/index.js");
const node = (await import(
  "../../packages/a2a-core/dist/node.js"
)) as typeof import("../../packages/a2a-core/dist/node.js");
const store = (await import(
  "../../packages/postgres-store/dist/index.js"
)) as typeof import("../../packages/postgres-store/dist/index.js");

const stepMs = Number(process.env.STEP_MS ?? 400);
const steps = Number(process.env.STEPS ?? 5);

const db = await store.openDatabase(
  process.env.DATABASE_URL ? { url: process.env.DATABASE_URL } : { dataDir: process.env.DATA_DIR ?? "memory://" },
);
await store.migrate(db);
const handler = core.createA2AHandler({
  stores: store.createPostgresStores(db),
  // A generic agent, as the SDK twin is: its tasks name no Environment.
  executor: {
    async execute({ emit, signal }) {
      for (let step = 1; step <= steps; step++) {
        await sleepUnlessAborted(stepMs, signal);
        if (signal.aborted) return { state: "TASK_STATE_FAILED" };
        await emit({ kind: "status", message: `robot: step ${step} of ${steps}`, metadata: { step, steps } });
      }
      await emit({
        kind: "artifact",
        artifact: { artifactId: "report", name: "Task report", parts: [{ text: `${steps} steps` }] },
        lastChunk: true,
      });
      return { state: "TASK_STATE_COMPLETED", message: "Done." };
    },
  },
  authenticate: async () => ({ ok: true, workspaceId: "00000000-0000-4000-8000-00000000be01" }),
  logger: { info() {}, warn() {}, error: console.error },
});
const server = createServer(node.toNodeHandler(handler, { basePath: "/api/v1/a2a" }));
listenAndAnnounce(server, Number(process.env.PORT ?? 0));
process.once("SIGTERM", () => void handler.close({ graceMs: 0 }).then(() => process.exit(0)));
