import type { Worker } from "node:worker_threads";
import { openDatabase, PostgresPushDeliveryQueue } from "@a2a-partner/postgres-store";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { CACHE_CHANGES_CHANNEL } from "../src/app.ts";
import { loadConfig } from "../src/config.ts";
import { PushDispatchThread } from "../src/push/dispatch-thread.ts";
import { postgresAvailable } from "./support/backends.ts";
import { leaseTestBed } from "./support/lease-test-bed.ts";
import { byTaskAndConfig, type PushReceiver, startPushReceiver } from "./support/push-receiver.ts";
import { pushSecretOf, startPushTask } from "./support/push-tasks.ts";
import { createPostgresStore, eventually, type ServerProcess } from "./support/server-process.ts";

// On PostgreSQL the reference server sends push deliveries from a worker thread of its own
// (PUSH_DISPATCH_THREAD, default on): the server's event loop answers requests and writes events while
// another thread signs and POSTs. What a user sees must not change: every event, in order, signed; the
// measurements on the server's own metrics endpoint; a clean stop. push-delivery.test.ts runs the thread
// through receiver failures, an outage and a SIGKILL across two instances.

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

  it("starts its thread again when the thread dies, and closes it with the server", async () => {
    const lines: Array<{ msg?: string; threadId?: number }> = [];
    const logger = pino({ level: "info" }, { write: (line: string) => lines.push(JSON.parse(line)) });
    const db = await openDatabase({ url: bed.store.url, pool: { max: 2 } });
    const queue = new PostgresPushDeliveryQueue(db);
    // What the thread asks of this thread's queue: its commits' hand-offs, for whom, and when they stop.
    const handOffs: string[] = [];
    const handOff = queue.handOff.bind(queue);
    vi.spyOn(queue, "handOff").mockImplementation((owner, leaseMs, listener) => {
      handOffs.push(`to ${owner}`);
      const stop = handOff(owner, leaseMs, listener);
      return () => {
        handOffs.push("stopped");
        stop();
      };
    });
    const thread = new PushDispatchThread(
      {
        databaseUrl: bed.store.url,
        instanceId: "runner-restart-test",
        logLevel: "warn",
        logFormat: "json",
        cacheChangesChannel: CACHE_CHANGES_CHANNEL,
        push: loadConfig({}).push,
      },
      queue,
      logger,
    );
    const startedThreads = () => lines.filter((l) => l.msg === "push dispatch thread started").map((l) => l.threadId);
    try {
      const [first] = await eventually(async () => (startedThreads().length > 0 ? startedThreads() : undefined), {
        timeoutMs: 10_000,
        what: "the dispatch thread to start",
      });
      await eventually(async () => (handOffs.length > 0 ? true : undefined), {
        timeoutMs: 10_000,
        what: "the thread's dispatcher to take this thread's hand-offs",
      });
      expect(handOffs).toEqual(["to runner-restart-test"]);
      // The thread gone, as after a crash in it.
      await (thread as unknown as { worker: Worker }).worker.terminate();
      const again = await eventually(async () => (startedThreads().length > 1 ? startedThreads()[1] : undefined), {
        timeoutMs: 10_000,
        what: "a new dispatch thread",
      });
      expect(again).not.toBe(first);
      expect(lines.map((l) => l.msg)).toContain("push dispatch thread ended; starting it again");
      // Nothing handed to the dead thread meanwhile; the new one takes the hand-offs again.
      await eventually(async () => (handOffs.length > 2 ? true : undefined), {
        timeoutMs: 10_000,
        what: "the new thread to take the hand-offs",
      });
      expect(handOffs).toEqual(["to runner-restart-test", "stopped", "to runner-restart-test"]);
    } finally {
      await thread.close(1_000);
      await queue.close();
      await db.close();
    }
    // Closed for good: no hand-off goes to it, and no thread is started again.
    expect(handOffs.at(-1)).toBe("stopped");
    const count = startedThreads().length;
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(startedThreads()).toHaveLength(count);
  });

  it("delivers from the server's own event loop with PUSH_DISPATCH_THREAD=off", async () => {
    const server = await bed.serve({ ...PUSH_ENV, PUSH_DISPATCH_THREAD: "off" });
    expect(server.log()).not.toContain("push dispatch thread started");
    const seqs = await deliveredInOrder(server, "loop");
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    expect((await server.kill("SIGTERM")).code).toBe(0);
  });
});
