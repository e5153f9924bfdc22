/**
 * Requests in flight per caller: one caller holding many (say, requests that announce a body and never
 * send it) cannot take every slot of the global bound from the others. O(1) per request; a caller with
 * none in flight takes no memory.
 */
export class CallerSlots {
  private readonly held = new Map<string, number>();

  constructor(private readonly maxPerCaller: number | undefined) {}

  /** Takes a slot for `key`: the function that gives it back (once), or undefined when the caller is full. */
  take(key: string): (() => void) | undefined {
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
