/**
 * Runs `pass` every `intervalMs`, never two at once, on a timer that keeps no process alive: how the
 * store stands in for PostgreSQL's background processes on PGlite (autovacuum, the checkpointer). A pass
 * that fails goes to `onError` and is tried again at the next interval.
 */
export class PeriodicPass {
  private readonly timer: ReturnType<typeof setInterval>;
  private running: Promise<unknown> | undefined;

  constructor(
    pass: () => Promise<unknown>,
    intervalMs: number,
    onError: ((error: unknown) => void) | undefined,
    /** False once the database was closed by whoever owns it: the timer then stops instead of failing. */
    isOpen: () => boolean,
  ) {
    this.timer = setInterval(() => {
      if (!isOpen()) {
        clearInterval(this.timer);
        return;
      }
      if (this.running) return; // the previous pass is still at work
      this.running = pass()
        .catch((error: unknown) => {
          try {
            onError?.(error);
          } catch {
            // A throwing onError must not become an unhandled rejection of a timer nobody awaits.
          }
        })
        .finally(() => {
          this.running = undefined;
        });
    }, intervalMs);
    this.timer.unref();
  }

  /** Stops the timer and waits for a pass under way. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }
}
