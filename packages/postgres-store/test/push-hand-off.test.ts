import { applyTaskEvent, type PushDelivery, type StoredTaskEvent } from "@a2a-partner/a2a-core";
import { must, storeFixtures } from "@a2a-partner/a2a-core/testing";
import { postgresAvailable } from "@a2a-partner/test-support/postgres";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { migratedStoresPerSuite } from "./support/migrated-backend.js";
import { deliveriesOf, expectStartDelivery, pushConfig, RunningTask } from "./support/push-fixtures.js";

const kinds = ["pglite", ...((await postgresAvailable()) ? (["postgres"] as const) : [])] as const;

const LEASE_MS = 60_000;
const OWNER = "dispatcher-here";

describe.each(kinds)("deliveries handed off by this process's commits (%s)", (kind) => {
  const fixtures = storeFixtures();
  const workspaceId = crypto.randomUUID();
  const suite = migratedStoresPerSuite(kind, "push_hand_off");
  const queue = () => suite.stores.push.deliveries;
  /** What the hand-off gave, in the order it came. */
  let handed: PushDelivery[] = [];
  const stops: Array<() => void> = [];
  const handOff = (leaseMs = LEASE_MS) => {
    const stop = queue().handOff(OWNER, leaseMs, (deliveries) => handed.push(...deliveries));
    stops.push(stop);
    return stop;
  };
  const keys = (deliveries: readonly PushDelivery[]) => deliveries.map((d) => `${d.config.id} ${d.event.seq}`);

  beforeEach(async () => {
    handed = [];
    await suite.backend.db.query("delete from push_deliveries");
  });
  afterEach(() => {
    for (const stop of stops.splice(0)) stop();
  });

  /** A task started with inline configs `ids`. */
  async function start(ids: string[]): Promise<RunningTask> {
    const input = fixtures.newTask(workspaceId);
    const record = await suite.stores.tasks.create({
      ...input,
      pushConfigs: ids.map((id) => pushConfig(input.task.id, id, { token: `token-${id}` })),
    });
    return new RunningTask(suite.stores, fixtures, record.task);
  }

  /** The task's next `count` events in one append, as a runner stores the events a step ends with. */
  async function appendEvents(running: RunningTask, count: number): Promise<void> {
    const events: StoredTaskEvent[] = [];
    let snapshot = running.task;
    for (let i = 1; i <= count; i++) {
      const entry = fixtures.update(snapshot, running.seq * 10 + i);
      events.push({ taskId: snapshot.id, seq: running.seq + i, ...entry });
      snapshot = applyTaskEvent(snapshot, entry.result);
    }
    expect(
      await suite.stores.events.appendNumbered({ taskId: snapshot.id, prevSeq: running.seq, events, snapshot }),
    ).toBe(true);
    running.seq += count;
    running.task = snapshot;
  }

  it("claims a start's deliveries for the taker in its own statement and hands them over whole", async () => {
    handOff();
    const woken = vi.fn();
    stops.push(queue().watchLocal(woken));
    const running = await start(["a", "b"]);

    await vi.waitFor(() => expect(handed).toHaveLength(2));
    expect(keys(handed).sort()).toEqual(["a 1", "b 1"]);
    const first = must(handed.find((d) => d.config.id === "a"));
    expectStartDelivery(first, { workspaceId, taskId: running.task.id, configId: "a" });
    // Held for the taker, attempt 1: nobody else claims them, and nothing was left to wake anyone for.
    expect(await deliveriesOf(suite.backend.db, running.task.id)).toMatchObject([
      { config_id: "a", seq: 1, attempts: 1, claimed_by: OWNER },
      { config_id: "b", seq: 1, attempts: 1, claimed_by: OWNER },
    ]);
    expect(await queue().claim("someone-else", 10, LEASE_MS)).toEqual([]);
    expect(woken).not.toHaveBeenCalled();
  });

  it("hands over a group commit's events once nothing older of their config is pending, in order", async () => {
    const running = await start(["a"]);
    // Delivered before the hand-off began: nothing of config a is pending.
    const [first] = await queue().claim(OWNER, 10, LEASE_MS);
    expect(await queue().complete(OWNER, must(first), LEASE_MS)).toBeUndefined();

    handOff();
    await appendEvents(running, 2);
    await vi.waitFor(() => expect(handed).toHaveLength(2));
    expect(keys(handed)).toEqual(["a 2", "a 3"]);
    expect(handed[0]).toMatchObject({
      workspaceId,
      attempt: 1,
      config: { id: "a", url: "https://receiver.example/a", token: "token-a" },
      event: { seq: 2, event: "update" },
    });
    // The events as stored, what a claim would have read back.
    expect(handed.map((d) => d.event)).toEqual(await suite.stores.events.readAfter(running.task.id, 1));
    expect(await deliveriesOf(suite.backend.db, running.task.id)).toMatchObject([
      { seq: 2, attempts: 1, claimed_by: OWNER },
      { seq: 3, attempts: 1, claimed_by: OWNER },
    ]);
  });

  it("renews the lease of a next delivery its owner holds on each complete, lapsed or not, and hands it back; release gives one back", async () => {
    const running = await start(["a"]);
    const [first] = await queue().claim(OWNER, 10, LEASE_MS);
    await queue().complete(OWNER, must(first), LEASE_MS);
    handOff();
    await appendEvents(running, 2);
    await vi.waitFor(() => expect(handed).toHaveLength(2));
    // Seq 3's lease ran out while seq 2 was on its way (a slow receiver): seq 2 held it back all along.
    await suite.backend.db.query(
      "update push_deliveries set claimed_until = now() - interval '1 second' where task_id = $1 and seq = 3",
      [running.task.id],
    );

    // Handed back to its owner (a dispatcher that holds it in a run ignores it), not claimed again.
    expect(await queue().complete(OWNER, must(handed[0]), LEASE_MS)).toMatchObject({ event: { seq: 3 }, attempt: 1 });
    const { rows } = await suite.backend.db.query<{ seconds: number; attempts: number; claimed_by: string }>(
      `select extract(epoch from claimed_until - now())::float8 as seconds, attempts, claimed_by
         from push_deliveries where task_id = $1`,
      [running.task.id],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ attempts: 1, claimed_by: OWNER });
    expect(rows[0]?.seconds).toBeGreaterThan(LEASE_MS / 1000 - 10);

    // Given back unsent: claimable at once, the attempt it was claimed for not counted.
    await queue().release(OWNER, must(handed[1]));
    expect(await deliveriesOf(suite.backend.db, running.task.id)).toMatchObject([
      { seq: 3, attempts: 0, claimed_by: null, last_error: null },
    ]);
    expect(await queue().claim("someone-else", 10, LEASE_MS)).toMatchObject([{ event: { seq: 3 }, attempt: 1 }]);
  });

  it("hands an event over behind older ones its taker holds, naming the newest of them", async () => {
    handOff();
    const running = await start(["a"]);
    await vi.waitFor(() => expect(handed).toHaveLength(1));

    // Seq 1 is still on its way, held by the taker: seq 2 goes to it too, to be sent after seq 1.
    expect(await running.next()).toBe(true);
    await vi.waitFor(() => expect(handed).toHaveLength(2));
    expect(handed[0]?.after).toBeUndefined();
    expect(handed[1]).toMatchObject({ event: { seq: 2 }, attempt: 1, after: 1 });
    expect(await deliveriesOf(suite.backend.db, running.task.id)).toMatchObject([
      { seq: 1, claimed_by: OWNER },
      { seq: 2, attempts: 1, claimed_by: OWNER },
    ]);
    expect(await queue().claim("someone-else", 10, LEASE_MS)).toEqual([]);
  });

  it("leaves an event whose config has an older delivery someone else holds to be claimed after it, and wakes", async () => {
    const running = await start(["a"]);
    const [first] = await queue().claim("someone-else", 10, LEASE_MS);
    handOff();
    const woken = vi.fn();
    stops.push(queue().watchLocal(woken));

    expect(await running.next()).toBe(true);
    await vi.waitFor(() => expect(woken).toHaveBeenCalledTimes(1));
    expect(handed).toEqual([]);
    expect(await deliveriesOf(suite.backend.db, running.task.id)).toMatchObject([
      { seq: 1, claimed_by: "someone-else" },
      { seq: 2, attempts: 0, claimed_by: null },
    ]);
    // Its delivery done, seq 1 hands seq 2 on to its holder, as always.
    const next = must(await queue().complete("someone-else", must(first), LEASE_MS));
    expect(next).toMatchObject({ event: { seq: 2 }, attempt: 1 });
  });

  it("hands nothing once stopped; what it handed and nobody sent is retaken when its lease lapses", async () => {
    // A lease already over: as if the taker had died with the deliveries in hand.
    const stop = handOff(-1_000);
    const running = await start(["a"]);
    await vi.waitFor(() => expect(handed).toHaveLength(1));
    const [retaken] = await queue().claim("someone-else", 10, LEASE_MS);
    expect(retaken).toMatchObject({ id: handed[0]?.id, attempt: 2, event: { seq: 1 } });
    expect(await queue().complete("someone-else", must(retaken), LEASE_MS)).toBeUndefined();

    stop();
    expect(await running.next()).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(handed).toHaveLength(1);
    expect(await deliveriesOf(suite.backend.db, running.task.id)).toMatchObject([
      { seq: 2, attempts: 0, claimed_by: null },
    ]);
  });

  it("hands nothing for a task without configs, and refuses a hand-off without an owner", async () => {
    handOff();
    const running = await RunningTask.start(suite.stores, fixtures, workspaceId);
    expect(await running.next()).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(handed).toEqual([]);
    expect(() => queue().handOff("", LEASE_MS, () => undefined)).toThrow(TypeError);
    expect(() => queue().handOff(OWNER, Number.NaN, () => undefined)).toThrow(TypeError);
  });
});
