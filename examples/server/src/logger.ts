import { type Logger, pino } from "pino";

/** Structured JSON logs on stderr, so stdout stays clean for CLI output (e.g. `seed`'s JSON line). */
export function createLogger(level: string): Logger {
  return pino({ level, base: { service: "a2a-reference-server" } }, pino.destination(2));
}
export type { Logger };
