import { MetricsWindowError, type MetricsWindowParameter } from "../../window/metrics-window-error.js";

/**
 * ISO-8601 extended format (and RFC 3339): a date, optionally followed by a time with an optional offset.
 * - date only `YYYY-MM-DD` means midnight UTC; a time without an offset is UTC;
 * - offsets `Z`, `±HH:MM`, `±HHMM`, `±HH`;
 * - a space where the offset's `+` belongs is read as `+`: an unencoded `+` in a query string arrives as a
 *   space (`?start_timestamp=2026-01-01T00:00:00+05:30`), and that input has no other meaning;
 * - fractions of a second up to 9 digits, truncated to milliseconds (the window echoed in the response is
 *   the truncated one, so the answer is exact for the window it states).
 */
const TIMESTAMP =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(?:([Zz])|([+\- ])(\d{2})(?::?(\d{2}))?)?)?$/;

// Date.UTC maps years 0–99 to 1900–1999, so build the limits with setUTCFullYear.
function utcMs(year: number, monthIndex: number, day: number): number {
  const date = new Date(0);
  date.setUTCFullYear(year, monthIndex, day);
  return date.getTime();
}

/** Bounds PostgreSQL and `Date.prototype.toISOString` both render as plain 4-digit-year timestamps. */
export const EARLIEST_BOUND = new Date(utcMs(1, 0, 1));
export const LATEST_BOUND_EXCLUSIVE = new Date(utcMs(10000, 0, 1));

function daysInMonth(year: number, month: number): number {
  if (month === 2) {
    const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
    return leap ? 29 : 28;
  }
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** Quotes user input for an error message without letting a huge or multi-line value through. */
function quote(value: string): string {
  return JSON.stringify(value.length > 64 ? `${value.slice(0, 64)}…` : value);
}

/**
 * Parses one window bound. Pure: no clock, no locale, no `Date.parse` (whose leniency differs between
 * engines and silently rolls 2025-02-30 over to March).
 */
export function parseMetricsTimestamp(value: string, parameter: MetricsWindowParameter): Date {
  const fail = (reason: "invalid_format" | "invalid_value" | "out_of_range", why: string): never => {
    throw new MetricsWindowError(parameter, reason, `${parameter} ${quote(value)} ${why}`);
  };

  const match = TIMESTAMP.exec(value);
  if (match === null) {
    return fail(
      "invalid_format",
      "is not an ISO-8601 timestamp (e.g. 2026-01-01T00:00:00Z, 2026-01-01T05:30:00+05:30) or a date (YYYY-MM-DD)",
    );
  }
  const [, y, mo, d, h, mi, s, fraction, zulu, sign, offH, offM] = match;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = h === undefined ? 0 : Number(h);
  const minute = mi === undefined ? 0 : Number(mi);
  const second = s === undefined ? 0 : Number(s);
  const millisecond = fraction === undefined ? 0 : Number(fraction.padEnd(3, "0").slice(0, 3));

  if (year < 1) return fail("out_of_range", "has a year outside 0001–9999");
  if (month < 1 || month > 12) return fail("invalid_value", `has month ${mo}; months run 01–12`);
  const lastDay = daysInMonth(year, month);
  if (day < 1 || day > lastDay) {
    return fail("invalid_value", `is not a calendar date: ${y}-${mo} has days 01–${lastDay}`);
  }
  if (hour > 23) return fail("invalid_value", `has hour ${h}; hours run 00–23`);
  if (minute > 59) return fail("invalid_value", `has minute ${mi}; minutes run 00–59`);
  if (second > 59) return fail("invalid_value", `has second ${s}; seconds run 00–59`);

  let offsetMinutes = 0;
  if (zulu === undefined && sign !== undefined) {
    const offsetHours = Number(offH);
    const offsetMins = offM === undefined ? 0 : Number(offM);
    if (offsetHours > 23 || offsetMins > 59) {
      return fail("invalid_value", "has a UTC offset outside -23:59…+23:59");
    }
    offsetMinutes = (sign === "-" ? -1 : 1) * (offsetHours * 60 + offsetMins);
  }

  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, millisecond);
  const instant = new Date(date.getTime() - offsetMinutes * 60_000);
  if (instant < EARLIEST_BOUND || instant >= LATEST_BOUND_EXCLUSIVE) {
    return fail("out_of_range", "is outside 0001-01-01T00:00:00Z…9999-12-31T23:59:59.999Z");
  }
  return instant;
}
