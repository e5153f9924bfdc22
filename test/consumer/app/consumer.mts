// A TypeScript consumer in ESM: every entry of the four packages but a2a-core/testing (contract.test.mts
// has it), used as the READMEs show. Type-checked against the installed tarballs under `node16` with
// skipLibCheck off (their declarations are checked too, with the optional peers' types installed as the
// READMEs say) and under `bundler` with skipLibCheck on (the common setup, no optional peer needed), and run
// by Node.
import { A2AClient, type A2AClientOptions, isA2AClientError, type TaskStreamEvent } from "@a2a-partner/a2a-client";
import {
  type A2AHandler,
  type AuthOutcome,
  createA2AHandler,
  createInMemoryStores,
  ERROR_CODES,
  isA2AError,
  type TaskExecutor,
  TaskNotFoundError,
  toFetchHandler,
} from "@a2a-partner/a2a-core";
import { type NodeHandler, toNodeHandler } from "@a2a-partner/a2a-core/node";
import {
  isMetricsWindowError,
  type MetricsWindow,
  metricsMigrations,
  parseMetricsWindow,
} from "@a2a-partner/metrics-core";
import {
  createPostgresStores,
  type Database,
  migrate,
  openDatabase,
  storeMigrations,
} from "@a2a-partner/postgres-store";

const executor: TaskExecutor = {
  async execute({ emit }) {
    await emit({ kind: "status", message: "half way", metadata: { percent: 50 } });
    return { state: "TASK_STATE_COMPLETED", message: "Done" };
  },
};
const refused: AuthOutcome = { ok: false, status: 401, message: "no token" };
const handler: A2AHandler = createA2AHandler({
  stores: createInMemoryStores(),
  executor,
  authenticate: async () => refused,
});
const fetchHandler: (request: Request) => Promise<Response> = toFetchHandler(handler);
const nodeHandler: NodeHandler = toNodeHandler(handler);

const options: A2AClientOptions = { baseUrl: "http://127.0.0.1:1", token: () => "t", maxRetries: 0 };
const client = new A2AClient(options);
const onEvent = (event: TaskStreamEvent): string => (event.type === "finished" ? event.state : event.type);

const window: MetricsWindow = parseMetricsWindow(new URLSearchParams("start_timestamp=2026-01-01"));
const sources = [storeMigrations(), metricsMigrations()];
const openDb: (url?: string) => Promise<Database> = (url) => openDatabase({ url });
const storesOf = (db: Database) => createPostgresStores(db);
const migrateAll = (db: Database) => migrate(db, { sources });

const answer = await fetchHandler(new Request("http://localhost/api/v1/a2a", { method: "POST", body: "{}" }));
await handler.close({ graceMs: 0 });
await client.close();

console.log(
  JSON.stringify({
    unauthenticated: answer.status,
    taskNotFound:
      new TaskNotFoundError("x").code === ERROR_CODES.TaskNotFound && isA2AError(new TaskNotFoundError("x")),
    clientErrorGuard: isA2AClientError(new Error("x")),
    window: window.start?.toISOString(),
    windowError: isMetricsWindowError(new Error("x")),
    functions: [nodeHandler, onEvent, openDb, storesOf, migrateAll].every((f) => typeof f === "function"),
    migrationSources: sources.map((source) => source.name),
  }),
);
