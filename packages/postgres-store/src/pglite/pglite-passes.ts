import { type PeriodicJob, startPeriodicJob } from "@a2a-partner/a2a-core";

/** What a stand-in for one of PostgreSQL's background processes is given (PGliteAutovacuumOptions, …). */
interface PassOptions {
  intervalMs?: number;
  onError?: (error: unknown) => void;
}

/**
 * The timer of a stand-in for one of PostgreSQL's background processes: `pass` every `options.intervalMs`
 * (`defaultIntervalMs` unless set), a failure to `options.onError`, until stopped or until `isOpen` says
 * whoever owns the database closed it (the timer then stops instead of failing).
 */
export function startPGlitePasses(
  pass: () => Promise<unknown>,
  options: PassOptions,
  defaultIntervalMs: number,
  isOpen: () => boolean,
): PeriodicJob {
  return startPeriodicJob(pass, {
    intervalMs: options.intervalMs ?? defaultIntervalMs,
    onError: options.onError,
    stopWhen: () => !isOpen(),
  });
}
