import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postgresAvailable } from "./support/backends.ts";
import { leaseTestBed } from "./support/lease-test-bed.ts";
import { byTaskAndConfig, type PushReceiver, startPushReceiver } from "./support/push-receiver.ts";
import { pushSecretOf, startPushTask } from "./support/push-tasks.ts";
import { createPostgresStore, eventually, type ServerProcess } from "./support/server-process.ts";

// On PostgreSQL the reference server sends push deliveries from a worker thread of its own
// (PUSH_DISPATCH_THREAD, default on): the server's event loop answers requests and writes events while
// another thread signs and POSTs. What a user sees must not change: every event, in order, signed; the
// measurements on the server's own metrics endpoint; a clean stop. push-delivery.test.ts runs the thread
// through receiver failures, an outage and a SIGKILL across two instances; the thread's restarts are
// postgres-store's own test (packages/postgres-store/test/push-dispatch-thread.test.ts).

const PUSH_ENV = { PUSH_ALLOWED_HOSTS: "127.0.0.1" };

/** The value of the first sample named `name` (labels ignored), or 0 when there is none yet. */
function sample(exposition: string, name: string): number {
  const line = exposition.split("\n").find((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `));
  return line ? Number(line.slice(line.lastIndexOf(" ") + 1)) : 0;
}

function metricsUrlOf(log: string): string {
  for (const line of log.split("\n")) {
    try {
      const entry = JSON.parse(line) as { msg?: string; metricsUrl?: string };
      if (entry.msg === "OpenTelemetry started" && entry.metricsUrl) return entry.metricsUrl;
    } catch {
      // not a log line
    }
  }
  throw new Error(`no metrics endpoint in the log:\n${log}`);
}

describe.skipIf(!(await postgresAvailable()))("push deliveries from the dispatch thread (PostgreSQL)", () => {
  const bed = leaseTestBed(createPostgresStore);
  let receiver: PushReceiver;

  beforeAll(async () => {
    receiver = await startPushReceiver(await pushSecretOf(bed.store.env, "demo"));
  });
  afterAll(() => receiver?.close());

  /** Starts a task with an inline config at `path` and waits for every event its log holds, in order. */
  async function deliveredInOrder(server: ServerProcess, path: string): Promise<number[]> {
    const taskId = await startPushTask(server, bed.token, {
      version: "0.3",
      text: "Restock aisle 2",
      config: { url: `${receiver.base}/${path}` },
    });
    return eventually(
      async () => {
        const seqs = (byTaskAndConfig(receiver.received).get(`${taskId} /${path}`) ?? []).map((n) => n.seq);
        const { rows } = await bed.store.pool.query<{ last_seq: number; terminal: boolean }>(
          "select last_seq, terminal from tasks where id = $1",
          [taskId],
        );
        const task = rows[0];
        return task?.terminal && seqs.length === task.last_seq ? seqs : undefined;
      },
      { timeoutMs: 20_000, what: `every event of ${taskId} at its receiver` },
    );
  }

  it("delivers every event in order from its thread, counts them on the server's metrics endpoint, and stops cleanly", async () => {
    const server = await bed.serve({ ...PUSH_ENV, METRICS_PORT: "0" });
    const seqs = await deliveredInOrder(server, "thread");
    expect(server.log()).toContain('"component":"push","threadId"');
    expect(server.log()).toContain('"msg":"push dispatch thread started"');
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));

    // Measured on the thread, recorded on the server's thread within half a second (its report interval).
    const metricsUrl = metricsUrlOf(server.log());
    const delivered = await eventually(
      async () => {
        const count = sample(await (await fetch(metricsUrl)).text(), "a2a_push_delivered_total");
        return count >= seqs.length ? count : undefined;
      },
      { timeoutMs: 5_000, what: "the deliveries counted on /metrics" },
    );
    expect(delivered).toBe(seqs.length);

    const exit = await server.kill("SIGTERM");
    expect(exit.code).toBe(0);
  });

  it("delivers from the server's own event loop with PUSH_DISPATCH_THREAD=off", async () => {
    const server = await bed.serve({ ...PUSH_ENV, PUSH_DISPATCH_THREAD: "off" });
    expect(server.log()).not.toContain("push dispatch thread started");
    const seqs = await deliveredInOrder(server, "loop");
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    expect((await server.kill("SIGTERM")).code).toBe(0);
  });
});
