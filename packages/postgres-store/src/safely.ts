/** Calls a caller's callback; whatever it throws is its own and must not break the caller's bookkeeping. */
export function safely(fn: (() => void) | undefined): void {
  try {
    fn?.();
  } catch {
    // ignored on purpose
  }
}
