import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postgresAvailable } from "./support/backends.ts";
import { rpc, startParams } from "./support/rpc.ts";
import {
  createPostgresStore,
  openStream,
  type ServerProcess,
  seedWithCli,
  startServerProcess,
  stopAllServerProcesses,
} from "./support/server-process.ts";

// Leases and the orphan cutoff are judged by the database's clock: an instance whose own clock runs 20 s
// ahead must not take another instance's live tasks for orphans (it did when each used its own clock).

const LEASE_MS = 2_000;
const SKEW_MS = 20_000;
const SKEWED_CLOCK = fileURLToPath(new URL("./support/skewed-clock.mjs", import.meta.url));

describe.skipIf(!(await postgresAvailable()))("an instance whose clock runs 20 s ahead", () => {
  let store: Awaited<ReturnType<typeof createPostgresStore>>;
  let token: string;
  let honest: ServerProcess;
  let skewed: ServerProcess;

  beforeAll(async () => {
    store = await createPostgresStore();
    token = (await seedWithCli(store.env)).partnerToken;
    const env = { ...store.env, ROBOT_STEP_MS: "2000", TASK_LEASE_MS: String(LEASE_MS) };
    honest = await startServerProcess(env);
    skewed = await startServerProcess({
      ...env,
      NODE_OPTIONS: `--import ${SKEWED_CLOCK}`,
      TEST_CLOCK_OFFSET_MS: String(SKEW_MS),
    });
  });
  afterAll(async () => {
    await stopAllServerProcesses();
    await store?.drop();
  });

  it("runs ahead for real: its own timestamps are 20 s in the future", async () => {
    const stream = await openStream(skewed.a2aUrl, token, "SendStreamingMessage", startParams("Restock aisle 1"));
    const task = (await stream.until((f) => f.event === "task")).result;
    expect(Date.parse(task.status.timestamp) - Date.now()).toBeGreaterThan(SKEW_MS - 5_000);
    stream.close();
  });

  it("never ends another instance's live task as an orphan; the task completes where it runs", async () => {
    const stream = await openStream(honest.a2aUrl, token, "SendStreamingMessage", startParams("Restock aisle 2"));
    const taskId = (await stream.until((f) => f.event === "task")).result.id as string;
    // Several lease renewals of the honest instance and sweeps of the skewed one (every LEASE_MS / 2).
    await new Promise((resolve) => setTimeout(resolve, 3 * LEASE_MS));
    const polled = await rpc(skewed.a2aUrl, token, "GetTask", { id: taskId });
    expect(polled.body.result.status.state).toBe("working");
    const end = await stream.done;
    expect(end.error).toBeUndefined();
    expect(stream.frames.at(-2)?.result.status.state).toBe("completed");
  }, 40_000);
});
