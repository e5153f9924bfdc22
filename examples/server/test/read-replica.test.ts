import { type Replica, replicaAvailable, startReplica } from "@a2a-partner/test-support/replica";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postgresAvailable } from "./support/backends.ts";
import { leaseTestBed } from "./support/lease-test-bed.ts";
import { rpc } from "./support/rpc.ts";
import { createPostgresStore, type ServerProcess } from "./support/server-process.ts";

// A server with DATABASE_READ_URL on a real streaming replica (pg_basebackup, another port): the metrics
// aggregation reads there, and a replica that stops replaying never hides an ended task from GetTask.
describe.skipIf(!((await postgresAvailable()) && replicaAvailable()))("a server with a read replica", () => {
  const bed = leaseTestBed(createPostgresStore);
  let replica: Replica;
  let server: ServerProcess;

  beforeAll(async () => {
    replica = await startReplica(bed.store.url);
    const database = new URL(bed.store.url).pathname.slice(1);
    server = await bed.serve({ DATABASE_READ_URL: replica.url(database) });
  });
  afterAll(async () => {
    await server?.kill("SIGTERM");
    await replica?.stop();
  });

  async function movedCount(): Promise<number> {
    const res = await fetch(
      `${server.url}/api/v1/metrics/events/${bed.seeded.workspace.slug}?start_timestamp=2026-03-01&end_timestamp=2026-03-02`,
      { headers: { authorization: `Bearer ${bed.seeded.userToken}` } },
    );
    expect(res.status).toBe(200);
    return (await res.json()).telemetry.total;
  }

  async function insertTelemetry(): Promise<void> {
    await bed.store.pool.query(
      "insert into telemetry_events (workspace_id, event_type, occurred_at) values ($1, 'robot.moved', '2026-03-01T12:00:00Z')",
      [bed.seeded.workspace.uuid],
    );
  }

  it("counts metrics on the replica: rows it has not replayed yet are not counted until it has", async () => {
    await insertTelemetry();
    await replica.catchUp();
    expect(await movedCount()).toBe(1);
    await replica.pauseReplay();
    try {
      await insertTelemetry();
      expect(await movedCount()).toBe(1); // the primary has 2: the answer came from the replica
    } finally {
      await replica.resumeReplay();
    }
    await replica.catchUp();
    expect(await movedCount()).toBe(2);
  });

  it("answers GetTask and ListTasks with a task that ended while the replica stopped replaying", async () => {
    await replica.pauseReplay();
    try {
      const stream = await bed.start(server, "Restock aisle 4");
      const taskId = (await stream.until((f) => f.event === "task")).result.id as string;
      await stream.done;
      const got = await rpc(server.a2aUrl, bed.token, "GetTask", { id: taskId });
      expect(got.body.result).toMatchObject({ id: taskId, status: { state: "completed" } });
      const listed = await rpc(server.a2aUrl, bed.token, "ListTasks", { pageSize: 50 });
      const found = listed.body.result.tasks.find((t: { id: string }) => t.id === taskId);
      expect(found?.status.state).toBe("completed");
    } finally {
      await replica.resumeReplay();
    }
  });
});
