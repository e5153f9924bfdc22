/**
 * A sleep that a wake-up cuts short. A wake-up that comes while nobody sleeps is kept for the next sleep,
 * so none is lost between "found nothing to do" and "going to sleep". The timer does not keep a Node
 * process alive.
 */
export class Wakeup {
  private pending = false;
  private wakeSleeper: (() => void) | undefined;

  /** Whether a wake-up came while nobody slept; it is used up (the next `sleep` waits). */
  takeWake(): boolean {
    const woken = this.pending;
    this.pending = false;
    return woken;
  }

  wake(): void {
    if (this.wakeSleeper) this.wakeSleeper();
    else this.pending = true;
  }

  /**
   * Resolves after `ms` with false, or at the next `wake()` with true (at once if one came since the
   * last sleep).
   */
  sleep(ms: number): Promise<boolean> {
    if (this.pending) {
      this.pending = false;
      return Promise.resolve(true);
    }
    return new Promise<boolean>((resolve) => {
      const done = (woken: boolean) => {
        clearTimeout(timer);
        this.wakeSleeper = undefined;
        resolve(woken);
      };
      const timer = setTimeout(() => done(false), Math.max(0, ms));
      (timer as { unref?: () => void }).unref?.();
      this.wakeSleeper = () => done(true);
    });
  }
}

/** A plain pause that only `signal` cuts short (the dispatcher's pause after a store error). */
export function pause(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, Math.max(0, ms));
    (timer as { unref?: () => void }).unref?.();
    signal?.addEventListener("abort", done, { once: true });
  });
}
