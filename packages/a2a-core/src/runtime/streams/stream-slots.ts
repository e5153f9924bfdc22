/** Gives a reserved slot back; calling it more than once is harmless. */
export type ReleaseSlot = () => void;

/**
 * Open streams per caller. A slot is taken when the cap is checked, not when the first frame goes out,
 * so a burst of simultaneous requests cannot get past the cap; every stream gives its slot back exactly
 * once, however it ends (finished, client gone before or after the first frame, shutdown, failure).
 */
export class StreamSlots {
  private readonly open = new Map<string, number>();

  constructor(private readonly maxPerCaller: number | undefined) {}

  /** A slot for `key`, or undefined when the caller already holds the maximum. */
  reserve(key: string): ReleaseSlot | undefined {
    const held = this.open.get(key) ?? 0;
    if (this.maxPerCaller !== undefined && held >= this.maxPerCaller) return undefined;
    this.open.set(key, held + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.open.get(key) ?? 1) - 1;
      if (left > 0) this.open.set(key, left);
      else this.open.delete(key);
    };
  }
}
