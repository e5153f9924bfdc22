import { describe, expect, it } from "vitest";
import { FairSlots, type Tenancy, type Waiter } from "./fair-slots.js";

const run = (workspace: string, receiver = `${workspace}.example:443`, since = 0): Waiter => ({
  tenancy: { workspace, receiver },
  since,
});

/** Takes slots for `tenancy` while it may; how many it took. */
function fill(slots: FairSlots<Waiter>, tenancy: (i: number) => Tenancy): number {
  let taken = 0;
  while (slots.mayTake(tenancy(taken))) slots.take(tenancy(taken++));
  return taken;
}

describe("FairSlots", () => {
  it("lets a lone workspace use the idle slots but the reserve: 240 of 256, 225 to one receiver", () => {
    const many = new FairSlots<Waiter>(256);
    expect(fill(many, (i) => ({ workspace: "a", receiver: `r${i}` }))).toBe(240);
    const one = new FairSlots<Waiter>(256);
    expect(fill(one, () => ({ workspace: "a", receiver: "r" }))).toBe(225);
  });

  it("gives another workspace, and the busy one's other receiver, a slot at once", () => {
    const slots = new FairSlots<Waiter>(256);
    fill(slots, () => ({ workspace: "a", receiver: "hanging" }));
    expect(slots.mayTake({ workspace: "a", receiver: "hanging" })).toBe(false);
    expect(slots.mayTake({ workspace: "a", receiver: "other" })).toBe(true);
    expect(slots.mayTake({ workspace: "b", receiver: "hanging" })).toBe(true);
  });

  it("keeps every slot usable below 16 (no reserve)", () => {
    const slots = new FairSlots<Waiter>(4);
    expect(fill(slots, () => ({ workspace: "a", receiver: "r" }))).toBe(4);
  });

  it("hands a freed slot to the waiting workspace that holds the fewest, oldest first among equals", () => {
    const slots = new FairSlots<Waiter>(4);
    const busy = run("a");
    fill(slots, () => busy.tenancy);
    slots.enqueue(run("a", undefined, 1));
    const first = run("b", undefined, 2);
    const second = run("c", undefined, 3);
    slots.enqueue(first);
    slots.enqueue(second);
    expect(slots.next()).toBeUndefined();
    slots.free(busy.tenancy);
    expect(slots.next()).toBe(first);
    slots.free(busy.tenancy);
    expect(slots.next()).toBe(second);
    expect(slots.waitingCount).toBe(1);
  });

  it("starves nobody: an over-share workspace's waiting run goes once the others are served", () => {
    const slots = new FairSlots<Waiter>(4);
    const busy = run("a");
    fill(slots, () => busy.tenancy);
    const late = run("a", undefined, 1);
    slots.enqueue(late);
    slots.free(busy.tenancy);
    expect(slots.next()).toBe(late);
  });

  it("names what a claim should pass over: the workspaces and receivers that may take no slot", () => {
    const slots = new FairSlots<Waiter>(32);
    fill(slots, () => ({ workspace: "a", receiver: "hanging" }));
    slots.enqueue(run("a", "hanging"));
    expect(slots.claimRoom()).toEqual({
      limit: 3,
      skip: { skipWorkspaces: [], skipReceivers: [{ workspace: "a", receiver: "hanging" }] },
    });
    fill(slots, () => ({ workspace: "a", receiver: "other" }));
    expect(slots.claimRoom()).toMatchObject({ skip: { skipWorkspaces: ["a"] } });
  });
});
