import { EventEmitter } from "node:events";
import type { Client } from "pg";
import { afterEach, describe, expect, it, vi } from "vitest";
import { PgListener } from "./pg-listener.js";

/** Just enough of pg.Client: connect, query (recorded), end, and the events PgListener handles. */
class FakeClient extends EventEmitter {
  readonly queries: string[] = [];
  ended = false;
  /** When true, queries never answer: a connection that died without telling anyone. */
  silent = false;
  constructor(private readonly failConnect: boolean) {
    super();
  }
  async connect() {
    if (this.failConnect) throw new Error("connection refused");
  }
  /** Statements running at once, and the most there ever were (pg deprecates more than one). */
  active = 0;
  maxActive = 0;
  async query(sql: string) {
    this.queries.push(sql);
    this.active++;
    this.maxActive = Math.max(this.maxActive, this.active);
    if (this.silent) await new Promise(() => {});
    // Answered a few turns later, as a server's answer is: a statement asked meanwhile overlaps it.
    for (let i = 0; i < 3; i++) await new Promise<void>((resolve) => queueMicrotask(resolve));
    this.active--;
    return { rows: [], rowCount: 0 };
  }
  async end() {
    this.ended = true;
  }
  notify(channel: string, payload: string) {
    this.emit("notification", { channel, payload, processId: 1 });
  }
}

function setup(options: { failFirst?: number; heartbeatMs?: number } = {}) {
  const clients: FakeClient[] = [];
  let failures = options.failFirst ?? 0;
  const listener = new PgListener(() => {
    const client = new FakeClient(failures-- > 0);
    clients.push(client);
    return client as unknown as Client;
  }, options.heartbeatMs);
  return { listener, clients };
}

afterEach(() => {
  vi.useRealTimers();
});

describe("PgListener", () => {
  it("gives up a connection that stops answering though it never reported an error, and listens again", async () => {
    const { listener, clients } = setup({ heartbeatMs: 20 });
    let lost = 0;
    let reconnected = 0;
    await listener.listen(
      "a",
      () => {},
      () => reconnected++,
      () => lost++,
    );
    const first = clients[0] as FakeClient;
    first.silent = true; // e.g. a NAT dropped it: no 'error', no 'end'
    await vi.waitFor(() => expect(lost).toBe(1), { timeout: 2_000 });
    await vi.waitFor(() => expect(reconnected).toBe(1), { timeout: 2_000 });
    expect(first.ended).toBe(true);
    expect(clients[1]?.queries).toContain('LISTEN "a"');
    await listener.close();
  });

  it("serves every subscriber and channel over one connection", async () => {
    const { listener, clients } = setup();
    const got: string[] = [];
    await Promise.all([
      listener.listen("a", (p) => got.push(`a1:${p}`)),
      listener.listen("a", (p) => got.push(`a2:${p}`)),
      listener.listen("b", (p) => got.push(`b:${p}`)),
    ]);
    expect(clients).toHaveLength(1);
    clients[0]?.notify("a", "x");
    clients[0]?.notify("b", "y");
    clients[0]?.notify("c", "z");
    expect(got).toEqual(["a1:x", "a2:x", "b:y"]);
    await listener.close();
    expect(clients[0]?.ended).toBe(true);
  });

  it("asks its connection one statement at a time (pg deprecates overlapping ones)", async () => {
    const { listener, clients } = setup({ heartbeatMs: 1 });
    const stops = await Promise.all(["a", "b", "c", "d"].map((channel) => listener.listen(channel, () => {})));
    await new Promise((resolve) => setTimeout(resolve, 20)); // heartbeats meanwhile
    await Promise.all(stops.map((stop) => stop()));
    const client = clients[0] as FakeClient;
    expect(client.queries.filter((sql) => sql.startsWith("LISTEN"))).toHaveLength(4);
    expect(client.queries.filter((sql) => sql.startsWith("UNLISTEN"))).toHaveLength(4);
    expect(client.maxActive).toBe(1);
    await listener.close();
  });

  it("UNLISTENs a channel only when its last subscriber stops", async () => {
    const { listener, clients } = setup();
    const stopOne = await listener.listen("a", () => undefined);
    const stopTwo = await listener.listen("a", () => undefined);
    await stopOne();
    expect(clients[0]?.queries.filter((q) => q.startsWith("UNLISTEN"))).toEqual([]);
    await stopTwo();
    expect(clients[0]?.queries.filter((q) => q.startsWith("UNLISTEN"))).toEqual(['UNLISTEN "a"']);
    await listener.close();
  });

  it("refuses channel names that are not plain identifiers", async () => {
    const { listener, clients } = setup();
    await expect(listener.listen('x"; drop table tasks; --', () => undefined)).rejects.toThrow(/invalid channel/);
    expect(clients).toHaveLength(0);
  });

  it("reconnects after the connection fails, LISTENs again and tells subscribers", async () => {
    vi.useFakeTimers();
    const { listener, clients } = setup();
    const got: string[] = [];
    let reconnects = 0;
    await listener.listen(
      "a",
      (p) => got.push(p),
      () => reconnects++,
    );
    await listener.listen("b", () => undefined);
    clients[0]?.emit("error", new Error("terminated by administrator"));
    clients[0]?.emit("end");
    await vi.advanceTimersByTimeAsync(1_000);
    expect(clients).toHaveLength(2);
    expect(clients[1]?.queries).toEqual(['LISTEN "a"', 'LISTEN "b"']);
    expect(reconnects).toBe(1);
    clients[1]?.notify("a", "after");
    clients[0]?.notify("a", "stale connection"); // a dead client's events are ignored
    expect(got).toEqual(["after"]);
    await listener.close();
  });

  it("keeps retrying with backoff while the server is down", async () => {
    vi.useFakeTimers();
    const { listener, clients } = setup();
    let reconnects = 0;
    await listener.listen(
      "a",
      () => undefined,
      () => reconnects++,
    );
    // The next three connection attempts fail, the fourth succeeds.
    let failures = 3;
    const original = FakeClient.prototype.connect;
    vi.spyOn(FakeClient.prototype, "connect").mockImplementation(async function (this: FakeClient) {
      if (failures-- > 0) throw new Error("connection refused");
      return original.call(this);
    });
    clients[0]?.emit("error", new Error("server restart"));
    await vi.advanceTimersByTimeAsync(100 + 200 + 400 + 800);
    expect(clients).toHaveLength(5);
    expect(reconnects).toBe(1);
    expect(clients[4]?.queries).toEqual(['LISTEN "a"']);
    await listener.close();
  });

  it("reconnects at once when told the database answers again, at most once a second", async () => {
    vi.useFakeTimers();
    let down = false;
    const clients: FakeClient[] = [];
    const listener = new PgListener(() => {
      const client = new FakeClient(down);
      clients.push(client);
      return client as unknown as Client;
    });
    let reconnects = 0;
    await listener.listen(
      "a",
      () => undefined,
      () => reconnects++,
    );
    listener.reconnectSoon(); // connected: nothing to do
    expect(clients).toHaveLength(1);
    down = true;
    clients[0]?.emit("error", new Error("server gone"));
    // Five failed attempts (after 100, 200, 400, 800, 1600 ms); the next one waits 3.2 s more.
    await vi.advanceTimersByTimeAsync(3_100 + 1_000);
    expect(clients).toHaveLength(6);
    listener.reconnectSoon(); // tries now (and fails: still down)
    await vi.advanceTimersByTimeAsync(0);
    expect(clients).toHaveLength(7);
    down = false;
    listener.reconnectSoon(); // within a second of the last attempt: not yet
    await vi.advanceTimersByTimeAsync(0);
    expect(clients).toHaveLength(7);
    await vi.advanceTimersByTimeAsync(1_000);
    listener.reconnectSoon(); // long before the 5 s backoff would have run out
    await vi.advanceTimersByTimeAsync(0);
    expect(clients).toHaveLength(8);
    expect(clients[7]?.queries).toEqual(['LISTEN "a"']);
    expect(reconnects).toBe(1);
    await listener.close();
  });

  it("rejects listen when it cannot connect, and tries afresh next time", async () => {
    const { listener, clients } = setup({ failFirst: 1 });
    await expect(listener.listen("a", () => undefined)).rejects.toThrow("connection refused");
    await listener.listen("a", () => undefined);
    expect(clients).toHaveLength(2);
    expect(clients[1]?.queries).toEqual(['LISTEN "a"']);
    await listener.close();
  });
});
