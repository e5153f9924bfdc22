import { must, storeFixtures } from "@a2a-partner/a2a-core/testing";
import { postgresAvailable } from "@a2a-partner/test-support/postgres";
import { beforeEach, describe, expect, it } from "vitest";
import { migratedStoresPerSuite } from "./support/migrated-backend.js";
import { deliveriesOf, deliveryKeys, expectStartDelivery, pushConfig, RunningTask } from "./support/push-fixtures.js";

const kinds = ["pglite", ...((await postgresAvailable()) ? (["postgres"] as const) : [])] as const;

const LEASE_MS = 60_000;

describe.each(kinds)("PostgresPushDeliveryQueue (%s)", (kind) => {
  const fixtures = storeFixtures();
  const workspaceId = crypto.randomUUID();
  const suite = migratedStoresPerSuite(kind, "push_queue");
  const queue = () => suite.stores.push.deliveries;
  /** "<config> <seq>" of claimed deliveries, sorted. */
  const keys = (deliveries: readonly { config: { id: string }; event: { seq: number } }[]) =>
    deliveries.map((d) => `${d.config.id} ${d.event.seq}`).sort();

  // Claims see every task of the database: each test starts from an empty queue.
  beforeEach(async () => {
    await suite.backend.db.query("delete from push_deliveries");
  });

  /** A task started with inline configs (seq-1 deliveries), then `updates` more events. */
  async function task(configIds: string[], updates: number): Promise<RunningTask> {
    const input = fixtures.newTask(workspaceId);
    const record = await suite.stores.tasks.create({
      ...input,
      pushConfigs: configIds.map((id) => pushConfig(input.task.id, id, { token: `token-${id}` })),
    });
    const running = new RunningTask(suite.stores, fixtures, record.task);
    for (let i = 0; i < updates; i++) expect(await running.next()).toBe(true);
    return running;
  }

  it("claims each config's oldest delivery with its config, workspace and event; complete hands over the next", async () => {
    const running = await task(["a", "b"], 2);
    const claimed = await queue().claim("owner-1", 10, LEASE_MS);
    expect(keys(claimed)).toEqual(["a 1", "b 1"]);
    const first = must(claimed.find((d) => d.config.id === "a"));
    expectStartDelivery(first, { workspaceId, taskId: running.task.id, configId: "a" });

    // Both heads are claimed: nothing else of these configs may go.
    expect(await queue().claim("owner-2", 10, LEASE_MS)).toEqual([]);

    const second = must(await queue().complete("owner-1", first, LEASE_MS));
    expect(second).toMatchObject({ config: { id: "a" }, event: { seq: 2, event: "update" }, attempt: 1 });
    const third = must(await queue().complete("owner-1", second, LEASE_MS));
    expect(third.event.seq).toBe(3);
    expect(await queue().complete("owner-1", third, LEASE_MS)).toBeUndefined();
    expect(await deliveryKeys(suite.backend.db, running.task.id)).toEqual(["b 1", "b 2", "b 3"]);
  });

  it("claims at most `limit`, earliest due first, and nothing for a limit of 0", async () => {
    const tasks = [await task(["a"], 0), await task(["a"], 0), await task(["a"], 0)];
    expect(await queue().claim("owner", 0, LEASE_MS)).toEqual([]);
    const claimed = await queue().claim("owner", 2, LEASE_MS);
    expect(claimed.map((d) => d.event.taskId)).toEqual([tasks[0]?.task.id, tasks[1]?.task.id]);
    expect((await queue().claim("owner", 2, LEASE_MS)).map((d) => d.event.taskId)).toEqual([tasks[2]?.task.id]);
  });

  it("retries a failed attempt at its time, holding its config's later deliveries back meanwhile", async () => {
    const running = await task(["a"], 1);
    const [first] = await queue().claim("owner", 10, LEASE_MS);
    const retryAt = new Date(Date.now() + 3_600_000);
    await queue().retry("owner", must(first), retryAt, "HTTP 503");
    expect(await queue().claim("owner", 10, LEASE_MS)).toEqual([]);
    expect((await queue().nextDueAt())?.getTime()).toBe(retryAt.getTime());
    expect(await deliveriesOf(suite.backend.db, running.task.id)).toMatchObject([
      { seq: 1, attempts: 1, claimed_by: null, last_error: "HTTP 503" },
      { seq: 2, attempts: 0, claimed_by: null },
    ]);

    // Due again: the same delivery, its second attempt.
    await queue().retry("owner", must(first), new Date(0), "unused");
    // No longer held (the first retry let it go): a no-op, still due in an hour.
    expect(await queue().claim("owner", 10, LEASE_MS)).toEqual([]);
    await suite.backend.db.query("update push_deliveries set due_at = now() - interval '1 second', claimed_by = null");
    const [again] = await queue().claim("owner", 10, LEASE_MS);
    expect(again).toMatchObject({ id: first?.id, attempt: 2, event: { seq: 1 } });
  });

  it("gives up a delivery for the record and lets its config's next one go", async () => {
    const running = await task(["a"], 1);
    const [first] = await queue().claim("owner", 10, LEASE_MS);
    await queue().giveUp("owner", must(first), "HTTP 410 after 12 attempts");
    const [next] = await queue().claim("owner", 10, LEASE_MS);
    expect(next?.event.seq).toBe(2);
    const rows = await deliveriesOf(suite.backend.db, running.task.id);
    expect(rows[0]).toMatchObject({ seq: 1, last_error: "HTTP 410 after 12 attempts", claimed_by: null });
    expect(rows[0]?.given_up_at).toBeInstanceOf(Date);
    // A given-up delivery is never claimed again.
    await queue().complete("owner", must(next), LEASE_MS);
    expect(await queue().claim("owner", 10, LEASE_MS)).toEqual([]);
    expect(await queue().nextDueAt()).toBeUndefined();
  });

  it("lets only the holder of a claim complete, retry or give it up", async () => {
    const running = await task(["a"], 1);
    const [first] = await queue().claim("holder", 10, LEASE_MS);
    const delivery = must(first);
    expect(await queue().complete("intruder", delivery, LEASE_MS)).toBeUndefined();
    await queue().retry("intruder", delivery, new Date(), "no");
    await queue().giveUp("intruder", delivery, "no");
    expect(await deliveriesOf(suite.backend.db, running.task.id)).toMatchObject([
      { seq: 1, claimed_by: "holder", given_up_at: null, last_error: null },
      { seq: 2, claimed_by: null },
    ]);
    // A delivery this queue never handed out is nobody's.
    expect(await queue().complete("holder", { ...delivery, id: "made-up" }, LEASE_MS)).toBeUndefined();
    expect(must(await queue().complete("holder", delivery, LEASE_MS)).event.seq).toBe(2);
  });

  it("says when the next delivery falls due: now, a retry's time, or a live claim's expiry", async () => {
    expect(await queue().nextDueAt()).toBeUndefined();
    await task(["a"], 0);
    expect(must(await queue().nextDueAt()).getTime()).toBeLessThanOrEqual(Date.now() + 1_000);
    const before = Date.now();
    await queue().claim("owner", 10, 120_000);
    const expiry = must(await queue().nextDueAt()).getTime();
    expect(expiry).toBeGreaterThan(before + 100_000);
    expect(expiry).toBeLessThan(Date.now() + 121_000);
  });

  it("refuses a claim with no owner or a lease it cannot read, and a retry time that is not a date", async () => {
    await expect(queue().claim("", 1, LEASE_MS)).rejects.toThrow(TypeError);
    await expect(queue().claim("owner", 1, Number.NaN)).rejects.toThrow(TypeError);
    await task(["a"], 0);
    const [first] = await queue().claim("owner", 1, LEASE_MS);
    await expect(queue().retry("owner", must(first), new Date("nonsense"), "x")).rejects.toThrow(TypeError);
  });
});
