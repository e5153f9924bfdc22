/**
 * Resolves on the event loop's next turn, after the I/O of this one (a written frame) went out:
 * `setImmediate` where the runtime has it (Node, Bun, Deno), a zero-delay timer where it does not
 * (Cloudflare's workerd without `nodejs_compat`, browsers). Without the fallback a task started on such
 * a runtime would never run its executor.
 */
export function nextTurn(): Promise<void> {
  return new Promise<void>((resolve) =>
    typeof setImmediate === "function" ? setImmediate(resolve) : setTimeout(resolve, 0),
  );
}
