/** Gives a slot back; calling it more than once is harmless. */
export type ReleaseSlot = () => void;

/**
 * Slots per caller, for a bound each caller has on its own: requests in flight (one caller holding many,
 * say requests that announce a body and never send it, cannot take every slot of the global bound from
 * the others) and open streams. A slot is taken when the bound is checked, so a burst cannot get past it,
 * and given back exactly once however its holder ends. O(1); a caller holding none takes no memory.
 */
export class PerCallerSlots {
  private readonly held = new Map<string, number>();

  constructor(private readonly maxPerCaller: number | undefined) {}

  /** Takes a slot for `key`: the function that gives it back (once), or undefined when the caller is full. */
  take(key: string): ReleaseSlot | undefined {
    if (this.maxPerCaller === undefined) return noop;
    const count = this.held.get(key) ?? 0;
    if (count >= this.maxPerCaller) return undefined;
    this.held.set(key, count + 1);
    let given = false;
    return () => {
      if (given) return;
      given = true;
      const left = (this.held.get(key) ?? 1) - 1;
      if (left > 0) this.held.set(key, left);
      else this.held.delete(key);
    };
  }

  /** Slots `key` holds now. */
  heldBy(key: string): number {
    return this.held.get(key) ?? 0;
  }
}

function noop(): void {}
