/** Options of `startPeriodicJob`. */
export interface PeriodicJobOptions {
  /** Time between the starts of two runs. */
  intervalMs: number;
  /** The first run, this long after the start. Default `intervalMs`. */
  firstRunAfterMs?: number | undefined;
  /** A run failed (a slow or unreachable database, say); the schedule keeps going. Log it here. */
  onError?: ((error: unknown) => void) | undefined;
  /**
   * Checked before each run: once true (what the job works on was closed by its owner), the schedule
   * ends by itself instead of failing at every tick.
   */
  stopWhen?: (() => boolean) | undefined;
}

/** A running schedule (`startPeriodicJob`). */
export interface PeriodicJob {
  /** Ends the schedule, aborts the run's signal, and waits for a run under way to end. */
  stop(): Promise<void>;
}

/**
 * Runs `job` every `intervalMs`, never two runs at once: a tick that finds the previous run still at
 * work (a slow database) is skipped, not queued. A run that throws goes to `onError` and the next tick
 * runs again. The timers never keep the process alive. `job` gets a signal that `stop` aborts, so a long
 * run can end early.
 */
export function startPeriodicJob(
  job: (signal: AbortSignal) => Promise<unknown>,
  options: PeriodicJobOptions,
): PeriodicJob {
  const { intervalMs, firstRunAfterMs = intervalMs, onError, stopWhen } = options;
  const abort = new AbortController();
  let running: Promise<void> | undefined;
  let interval: ReturnType<typeof setInterval> | undefined;
  const tick = () => {
    if (abort.signal.aborted) return;
    if (stopWhen?.()) {
      end();
      return;
    }
    if (running) return;
    running = Promise.resolve()
      .then(() => job(abort.signal))
      .then(
        () => undefined,
        (error: unknown) => {
          try {
            onError?.(error);
          } catch {
            // A throwing onError must not become an unhandled rejection of a timer nobody awaits.
          }
        },
      )
      .finally(() => {
        running = undefined;
      });
  };
  const first = setTimeout(() => {
    tick();
    if (abort.signal.aborted) return;
    interval = setInterval(tick, intervalMs);
    interval.unref?.();
  }, firstRunAfterMs);
  first.unref?.();
  const end = () => {
    clearTimeout(first);
    clearInterval(interval);
    abort.abort();
  };
  return {
    async stop() {
      end();
      await running;
    },
  };
}
