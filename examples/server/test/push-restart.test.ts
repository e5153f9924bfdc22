import { afterAll, describe, expect, it } from "vitest";
import { leaseTestBed } from "./support/lease-test-bed.ts";
import { byTaskAndConfig, duplicatesOf, type PushReceiver, startPushReceiver } from "./support/push-receiver.ts";
import { createPushConfig, pushSecretOf, startPushTask } from "./support/push-tasks.ts";
import { rpc } from "./support/rpc.ts";
import { createPgliteStore, eventually, openStream, type ServerProcess } from "./support/server-process.ts";

// The embedded store (PGlite), one instance: a SIGKILL while a delivery is in flight and others wait,
// then a start on the same data directory. The new process retakes the lapsed claim and sends what was
// pending, in order, with the end the orphan sweep gives the task.

/** The dispatcher's lease: one attempt's limit (10 s) + 10 s margin. */
const PUSH_LEASE_MS = 20_000;
const PUSH_ENV = { PUSH_ALLOWED_HOSTS: "127.0.0.1", PUSH_MAX_RETRY_WAIT: "1s" };
const TERMINAL = new Set(["completed", "failed", "canceled", "rejected"]);

describe("push notifications on PGlite across a SIGKILL and a restart", () => {
  const bed = leaseTestBed(createPgliteStore);
  const receivers: PushReceiver[] = [];
  afterAll(() => Promise.all(receivers.map((r) => r.close())));

  /** The task's stored seqs, from a replay of its log. */
  async function loggedSeqs(server: ServerProcess, taskId: string): Promise<number[]> {
    const replay = await openStream(
      server.a2aUrl,
      bed.token,
      "SubscribeToTask",
      { id: taskId },
      { "Last-Event-ID": "1" },
    );
    await replay.done;
    return replay.frames.slice(0, -1).map((f) => Number(f.id));
  }

  it("redelivers after a restart what was in flight and pending when the process was killed", async () => {
    const first = await bed.serve(PUSH_ENV);
    // Asked of the running server over its control socket (cheaper than opening the data directory again).
    const receiver = await startPushReceiver(await pushSecretOf(bed.store.env, "demo"));
    receivers.push(receiver);
    // The first two notifications are taken; from the third on the receiver holds them unanswered.
    receiver.answer = (_, i) => (i < 2 ? { kind: "ok" } : { kind: "hold" });
    const inline = `${receiver.base}/inline`;
    const taskId = await startPushTask(first, bed.token, {
      version: "1.0",
      text: "Restock aisle 5",
      config: { url: inline },
    });
    await createPushConfig(first, bed.token, {
      version: "0.3",
      taskId,
      id: "method",
      url: `${receiver.base}/method`,
      token: "t-method",
    });
    await eventually(async () => (receiver.held() >= 2 ? true : undefined), {
      timeoutMs: 10_000,
      intervalMs: 20,
      what: "a delivery of each config in flight",
    });
    // More events are stored while those wait.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect((await first.kill("SIGKILL")).signal).toBe("SIGKILL");
    receiver.answer = () => ({ kind: "ok" });
    const killedAt = performance.now();

    const second = await bed.serve(PUSH_ENV);
    let log: number[] = [];
    await eventually(
      async () => {
        const { body } = await rpc(second.a2aUrl, bed.token, "GetTask", { id: taskId });
        if (!TERMINAL.has(body.result?.status?.state)) return undefined;
        log = await loggedSeqs(second, taskId);
        const groups = byTaskAndConfig(receiver.received);
        const ends = ["/inline", "/method"].map((path) => groups.get(`${taskId} ${path}`)?.at(-1)?.seq);
        return ends.every((seq) => seq === log.at(-1)) ? true : undefined;
      },
      { timeoutMs: PUSH_LEASE_MS + 20_000, intervalMs: 250, what: "the task's last event to reach both configs" },
    );
    const deliveredAfter = performance.now() - killedAt;

    const groups = byTaskAndConfig(receiver.received);
    expect(receiver.unverified).toEqual([]);
    expect(groups.get(`${taskId} /inline`)?.map((n) => n.seq)).toEqual(log);
    const methodSeqs = groups.get(`${taskId} /method`)?.map((n) => n.seq) ?? [];
    expect(methodSeqs).toEqual(log.slice(log.indexOf(methodSeqs[0] as number)));
    expect(methodSeqs.length).toBeGreaterThanOrEqual(2);
    for (const n of receiver.received) expect(n.version).toBe(n.path === "/inline" ? "1.0" : "0.3");
    // The held ones were handled before the kill and sent again by the new process: duplicates, dropped by id.
    expect(duplicatesOf(receiver.received)).toBeGreaterThanOrEqual(2);
    console.info(
      `push restart (PGlite): ${log.length} events, ${receiver.received.length} requests, ` +
        `${duplicatesOf(receiver.received)} duplicates, all delivered ${Math.round(deliveredAfter)} ms after the kill`,
    );
  });
});
