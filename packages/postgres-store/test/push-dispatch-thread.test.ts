import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Worker } from "node:worker_threads";
import type { PushMeasurements } from "@a2a-partner/a2a-core";
import { storeFixtures } from "@a2a-partner/a2a-core/testing";
import { PushDispatchThread } from "@a2a-partner/postgres-store/dispatch-thread";
import { POSTGRES_URL, postgresAvailable } from "@a2a-partner/test-support/postgres";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { FixtureData } from "./support/dispatch-worker.js";
import { migratedStoresPerSuite } from "./support/migrated-backend.js";
import { pushConfig, RunningTask } from "./support/push-fixtures.js";

const WORKER = new URL("./support/dispatch-worker.ts", import.meta.url);
const SECRET = `whsec_${Buffer.from("a dispatch thread's test secret!").toString("base64")}`;

/** A logger that keeps each line's message and fields. */
function lineLogger() {
  const lines: Array<{ msg: string; threadId?: number }> = [];
  const push = (obj: object, msg?: string) => void lines.push({ ...(obj as object), msg: msg ?? "" });
  return { lines, logger: { info: push, warn: push, error: push } };
}

async function eventually<T>(probe: () => T | undefined, what: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe.skipIf(!(await postgresAvailable()))("PushDispatchThread (PostgreSQL)", () => {
  const fixtures = storeFixtures();
  const workspaceId = crypto.randomUUID();
  const suite = migratedStoresPerSuite("postgres", "push_thread");
  const data = (): FixtureData => ({ url: POSTGRES_URL, schema: suite.backend.schema as string, secret: SECRET });
  /** What the receiver was sent: path, seq, and whether it came signed. */
  const received: Array<{ path: string; seq: number; signed: boolean }> = [];
  let receiver: Server;
  let base = "";

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      req.resume().on("end", () => {
        // The webhook-id ends with the event's seq (a2a-core's webhook-id.ts).
        const seq = Number(String(req.headers["webhook-id"]).split(".").at(-1));
        received.push({ path: req.url ?? "", seq, signed: /^v1,/.test(String(req.headers["webhook-signature"])) });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => receiver?.close(() => resolve())));

  it("delivers a task's events from its thread, in order and signed, and records the measurements here", async () => {
    const counted: string[] = [];
    const telemetry: PushMeasurements = {
      attempted: () => counted.push("attempted"),
      delivered: () => counted.push("delivered"),
      failed: (reason) => counted.push(`failed ${reason}`),
      givenUp: () => counted.push("givenUp"),
    };
    const { lines, logger } = lineLogger();
    const thread = new PushDispatchThread({
      module: WORKER,
      data: data(),
      instanceId: "runner-deliver-test",
      deliveries: suite.stores.push.deliveries,
      logger,
      telemetry,
    });
    try {
      const input = fixtures.newTask(workspaceId);
      const record = await suite.stores.tasks.create({
        ...input,
        pushConfigs: [pushConfig(input.task.id, "c1", { url: `${base}/in-order` })],
      });
      const running = new RunningTask(suite.stores, fixtures, record.task);
      for (let i = 0; i < 3; i++) expect(await running.next()).toBe(true);
      const seqs = await eventually(() => {
        const got = received.filter((r) => r.path === "/in-order");
        return got.length >= 4 ? got : undefined;
      }, "four deliveries at the receiver");
      expect(seqs.map((r) => r.seq)).toEqual([1, 2, 3, 4]);
      expect(seqs.every((r) => r.signed)).toBe(true);
      // Measured on the thread, recorded on this one within half a second (its report interval).
      await eventually(() => (counted.filter((c) => c === "delivered").length >= 4 ? true : undefined), "the count");
      expect(lines.map((l) => l.msg)).toContain("push dispatch thread started");
    } finally {
      await thread.close(1_000);
    }
  });

  it("starts its thread again when the thread dies, and closes it for good", async () => {
    const { lines, logger } = lineLogger();
    const queue = suite.stores.push.deliveries;
    // What the thread asks of this thread's queue: its commits' hand-offs, for whom, and when they stop.
    const handOffs: string[] = [];
    const handOff = queue.handOff.bind(queue);
    const spy = vi.spyOn(queue, "handOff").mockImplementation((owner, leaseMs, listener) => {
      handOffs.push(`to ${owner}`);
      const stop = handOff(owner, leaseMs, listener);
      return () => {
        handOffs.push("stopped");
        stop();
      };
    });
    const thread = new PushDispatchThread({
      module: WORKER,
      data: data(),
      instanceId: "runner-restart-test",
      deliveries: queue,
      logger,
    });
    const startedThreads = () => lines.filter((l) => l.msg === "push dispatch thread started").map((l) => l.threadId);
    try {
      const [first] = await eventually(
        () => (startedThreads().length > 0 ? startedThreads() : undefined),
        "the thread to start",
      );
      await eventually(() => (handOffs.length > 0 ? true : undefined), "the thread's dispatcher to take hand-offs");
      expect(handOffs).toEqual(["to runner-restart-test"]);
      // The thread gone, as after a crash in it.
      await (thread as unknown as { worker: Worker }).worker.terminate();
      const again = await eventually(
        () => (startedThreads().length > 1 ? startedThreads()[1] : undefined),
        "a new dispatch thread",
      );
      expect(again).not.toBe(first);
      expect(lines.map((l) => l.msg)).toContain("push dispatch thread ended; starting it again");
      // Nothing handed to the dead thread meanwhile; the new one takes the hand-offs again.
      await eventually(() => (handOffs.length > 2 ? true : undefined), "the new thread to take the hand-offs");
      expect(handOffs).toEqual(["to runner-restart-test", "stopped", "to runner-restart-test"]);
    } finally {
      await thread.close(1_000);
      spy.mockRestore();
    }
    // Closed for good: no hand-off goes to it, and no thread is started again.
    expect(handOffs.at(-1)).toBe("stopped");
    const count = startedThreads().length;
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(startedThreads()).toHaveLength(count);
  });

  it("logs a setup that fails and tries again, backing off", async () => {
    const { lines, logger } = lineLogger();
    const thread = new PushDispatchThread({
      module: WORKER,
      data: { ...data(), fail: true },
      instanceId: "runner-failing-setup",
      deliveries: suite.stores.push.deliveries,
      logger,
    });
    try {
      await eventually(
        () =>
          lines.filter((l) => l.msg === "push dispatch thread ended; starting it again").length >= 2 ? true : undefined,
        "two restarts",
      );
      expect(lines.map((l) => l.msg)).toContain("push dispatch thread failed");
    } finally {
      await thread.close(100);
    }
  });
});
