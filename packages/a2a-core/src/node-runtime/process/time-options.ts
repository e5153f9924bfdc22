import { parseDuration } from "../settings.js";
import { UsageError } from "./command-line.js";

// A command line's times, read as the settings read theirs (`parseDuration`), each refused with a
// UsageError (exit 2) that names the option and says what it takes.

/**
 * A duration option (`--expires-in 30d`) in seconds. `example` finishes the message's "e.g. …"
 * (`"30d or 12h"`), so a caller can add what else the option takes.
 */
export function durationOption(value: string, option: string, example: string): number {
  const seconds = parseDuration(value);
  if (seconds === undefined) {
    throw new UsageError(`${option} must be a number and a unit (s, m, h, d, w), e.g. ${example}; got "${value}"`);
  }
  return seconds;
}

/**
 * A moment in the past (`--ended-before 30d`), in milliseconds since the epoch: a duration back from
 * `now`, or an ISO-8601 instant with a date, a time and a zone (`2026-01-31` alone would be read as local
 * midnight by some readers, so it is refused).
 */
export function pastInstantOption(value: string, option: string, now: number): number {
  const seconds = parseDuration(value);
  const at = seconds !== undefined ? now - seconds * 1000 : isoInstant(value);
  if (at === undefined) {
    throw new UsageError(
      `${option} must be a duration (a number and a unit: s, m, h, d, w, e.g. 30d) or an ISO-8601 time with a zone (2026-01-31T00:00:00Z); got "${value}"`,
    );
  }
  return at;
}

function isoInstant(text: string): number | undefined {
  if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d{1,9})?)?(Z|[+-]\d\d:\d\d)$/.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : at;
}
