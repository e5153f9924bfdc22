/**
 * Waits `ms`, or less: resolves early (never rejects) the moment `signal` aborts, so a bench executor's
 * step ends at once when its task is canceled and the caller checks `signal.aborted` next.
 */
export function sleepUnlessAborted(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0 || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}
