import { connect } from "node:net";
import { beforeAll, describe, expect, it } from "vitest";
import { type Backend, postgresAvailable } from "./support/backends.ts";
import { serverProcessPerSuite } from "./support/process-suite.ts";
import { startParams } from "./support/rpc.ts";
import {
  createPgliteStore,
  createPostgresStore,
  eventually,
  openStream,
  type ProcessStore,
} from "./support/server-process.ts";

// A caller's open-stream cap is a real cap, and every stream gives its slot back however it ends —
// including a client that leaves while its request is still being handled.

const CAP = 3;

/**
 * Sends one streaming request over a raw socket and destroys the socket `afterMs` after writing it,
 * before (or just as) the server answers: the early disconnect that must not keep a slot.
 */
function sendAndVanish(url: string, token: string, body: unknown, afterMs: number): Promise<void> {
  const { hostname, port, pathname } = new URL(url);
  const payload = JSON.stringify(body);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname, () => {
      socket.write(
        `POST ${pathname} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAuthorization: Bearer ${token}\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(payload)}\r\n\r\n${payload}`,
      );
      setTimeout(() => socket.destroy(), afterMs);
    });
    socket.on("error", () => undefined);
    socket.on("close", () => resolve());
  });
}

const backends: Backend[] = ["pglite", ...((await postgresAvailable()) ? (["postgres"] as const) : [])];

describe.each(backends)("stream slots on %s (MAX_STREAMS_PER_TOKEN=3)", (backend) => {
  const suite = serverProcessPerSuite<ProcessStore>(backend === "pglite" ? createPgliteStore : createPostgresStore, {
    // Robots that take their time, so tasks stay working and their streams stay open.
    env: { MAX_STREAMS_PER_TOKEN: String(CAP), ROBOT_STEP_MS: "60000" },
  });
  let token: string;
  let workingTaskId: string;

  beforeAll(async () => {
    token = suite.seeded.partnerToken;
    const first = await openStream(suite.server.a2aUrl, token, "SendStreamingMessage", startParams("Restock aisle 1"));
    workingTaskId = (await first.until((f) => f.event === "task")).result.id as string;
    first.close();
  });

  /** A SubscribeToTask whose answer may be a refusal: its HTTP status, and a way to hang up. */
  async function subscribe(): Promise<{ status: number; close: () => void }> {
    const controller = new AbortController();
    const res = await fetch(suite.server.a2aUrl, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "SubscribeToTask", params: { id: workingTaskId } }),
      signal: controller.signal,
    });
    if (res.status !== 200) await res.body?.cancel();
    return { status: res.status, close: () => controller.abort() };
  }

  /** Waits until a new stream is accepted again (all slots free), then closes it. */
  async function expectSlotsFree(): Promise<void> {
    await eventually(
      async () => {
        const streams = await Promise.all(Array.from({ length: CAP }, () => subscribe()));
        for (const s of streams) s.close();
        return streams.every((s) => s.status === 200) ? true : undefined;
      },
      { timeoutMs: 5_000, what: `${CAP} streams to be accepted again` },
    );
  }

  it("is a cap under a burst: of 30 simultaneous subscriptions at most 3 open, the rest get 429", async () => {
    await expectSlotsFree();
    const streams = await Promise.all(Array.from({ length: 30 }, () => subscribe()));
    const statuses = streams.map((s) => s.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(CAP);
    expect(statuses.filter((s) => s === 429)).toHaveLength(30 - CAP);
    for (const s of streams) s.close();
    await expectSlotsFree();
  });

  it("gives the slot back when the client vanishes while its request is being handled", async () => {
    await expectSlotsFree();
    const requests = [
      { jsonrpc: "2.0", id: 1, method: "SubscribeToTask", params: { id: workingTaskId } },
      { jsonrpc: "2.0", id: 2, method: "SendStreamingMessage", params: startParams("Restock aisle 9") },
    ];
    // Ten clients each way, gone 0–3 ms after sending: before, during and just after the answer.
    for (let i = 0; i < 10; i++) {
      await Promise.all(requests.map((body) => sendAndVanish(suite.server.a2aUrl, token, body, i % 4)));
    }
    // Had any of those twenty kept its slot, the token would be locked out (cap 3).
    await expectSlotsFree();
    expect(suite.server.log()).not.toMatch(/"level":(50|60)/);
  });
});
