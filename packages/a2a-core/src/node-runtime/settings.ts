import { isIP } from "node:net";

// Reading a server's settings from its environment, each refused with a message that names the variable
// and what it takes: a value the server would misuse stops the start instead of failing later somewhere
// that names no setting. Each function takes the raw value (`env.PORT`) and the variable's name.

/** A setting the process refuses to run with; a CLI exits with EX_CONFIG (78) and the message. */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
}

/** Decimal digits only: `Number` would also take `1e3`, `0x10` or `1e300`. Unset or empty: `fallback`. */
export function integerSetting(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === "") return fallback;
  const parsed = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(parsed)) throw new ConfigError(`${name} must be a non-negative integer, got "${value}"`);
  return parsed;
}

/** A TCP port, 0 to 65535 (0: the system picks a free one). */
export function portSetting(value: string | undefined, fallback: number, name: string): number {
  const port = integerSetting(value, fallback, name);
  if (port > 65_535) throw new ConfigError(`${name} must be a TCP port (0 to 65535), got "${value}"`);
  return port;
}

/** The longest delay node's timers take; a longer one would fire after 1 ms (TimeoutOverflowWarning). */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** Milliseconds a timer is set with: within what node's timers take, and not below `min`. */
export function millisecondsSetting(value: string | undefined, fallback: number, name: string, min = 0): number {
  const ms = integerSetting(value, fallback, name);
  if (ms < min || ms > MAX_TIMER_MS) {
    throw new ConfigError(`${name} must be between ${min} and ${MAX_TIMER_MS} (milliseconds), got "${value}"`);
  }
  return ms;
}

/** `on` or `off` (any case); unset or empty: on. */
export function onOffSetting(value: string | undefined, name: string): boolean {
  if (!value) return true;
  const normalized = value.trim().toLowerCase();
  if (normalized === "on") return true;
  if (normalized === "off") return false;
  throw new ConfigError(`${name} must be on or off (unset: on), got "${value}"`);
}

const UNIT_SECONDS = { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 } as const;

/** The longest duration `parseDuration` reads: past it, "never" is the honest setting. */
export const MAX_DURATION_SECONDS = 10 * 365 * 86_400;

/**
 * `30d`, `12h`, `90m`, `2w`, `45s` → seconds; undefined for anything else (zero, a bare number, a
 * fraction, several units, more than ten years), so a typo never becomes a lifetime that lasts forever.
 */
export function parseDuration(text: string): number | undefined {
  const match = /^(\d{1,9})([smhdw])$/.exec(text.trim());
  if (!match) return undefined;
  const seconds = Number(match[1]) * UNIT_SECONDS[match[2] as keyof typeof UNIT_SECONDS];
  return seconds > 0 && seconds <= MAX_DURATION_SECONDS ? seconds : undefined;
}

/** How a duration setting is read by `durationSetting`. */
export interface DurationSettingSpec {
  /** The variable's name, for the message. */
  name: string;
  /** The shortest accepted (a duration: `1h`); default `1s`. */
  min?: string;
  /** A value to show in the message (`30d`). */
  example: string;
  /** What an unset value means, when it has no default (said in the message: `unset keeps tasks forever`). */
  unset?: string;
}

/**
 * A duration with a unit (`parseDuration`: `30d`, `12h`), at least `spec.min`, in milliseconds. A bare
 * number is refused: it would say no unit. Unset or empty: `fallback` read the same way, or undefined.
 */
export function durationSetting(value: string | undefined, spec: DurationSettingSpec, fallback: string): number;
export function durationSetting(value: string | undefined, spec: DurationSettingSpec): number | undefined;
export function durationSetting(
  value: string | undefined,
  spec: DurationSettingSpec,
  fallback?: string,
): number | undefined {
  const text = value || fallback;
  if (!text) return undefined;
  const min = spec.min ?? "1s";
  const seconds = parseDuration(text);
  if (seconds === undefined || seconds < (parseDuration(min) ?? 1)) {
    const unset = spec.unset ? `; ${spec.unset}` : "";
    throw new ConfigError(
      `${spec.name} must be a duration of at least ${min} with a unit (s, m, h, d, w), e.g. ${spec.example}${unset}; got "${value}"`,
    );
  }
  return seconds * 1000;
}

/** pino's levels; anything else made the logger throw at start with a message that named no variable. */
export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;

/** A log level (any case); unset: `info`. */
export function logLevelSetting(value: string | undefined, name = "LOG_LEVEL"): string {
  if (!value) return "info";
  const level = value.toLowerCase();
  if (!(LOG_LEVELS as readonly string[]).includes(level)) {
    throw new ConfigError(`${name} must be one of ${LOG_LEVELS.join(", ")}, got "${value}"`);
  }
  return level;
}

/** `json` or `pretty`; unset: undefined (the logger then picks pretty in a terminal, else JSON). */
export function logFormatSetting(value: string | undefined, name = "LOG_FORMAT"): "json" | "pretty" | undefined {
  if (!value) return undefined;
  if (value === "json" || value === "pretty") return value;
  throw new ConfigError(`${name} must be json or pretty (unset: pretty in a terminal, else json), got "${value}"`);
}

/**
 * The base URL peers reach the server at (the agent card publishes it): an absolute http(s) URL without
 * credentials, without its trailing slashes. Unset: `http://localhost:<port>` (localhost, not 127.0.0.1:
 * conformance tools compare the card's URL with the one they were given).
 */
export function publicUrlSetting(value: string | undefined, port: number, name = "PUBLIC_URL"): string {
  if (!value) return `http://localhost:${port}`;
  const url = URL.parse(value);
  if (url === null || (url.protocol !== "http:" && url.protocol !== "https:")) {
    throw new ConfigError(`${name} must be an absolute http(s) URL, got "${redactSecrets(value)}"`);
  }
  // The agent card is public and carries this URL: credentials in it would be published to anyone.
  if (url.username !== "" || url.password !== "") {
    throw new ConfigError(
      `${name} must not carry credentials (user:password@): the agent card publishes it, got "${redactSecrets(value)}"`,
    );
  }
  return value.replace(/\/+$/, "");
}

/** `localhost`, 127.0.0.0/8 and ::1 (also IPv4-mapped); `0.0.0.0`, `::` and any other name are not. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, "$1").toLowerCase();
  if (bare === "localhost") return true;
  if (isIP(bare) === 4) return bare.startsWith("127.");
  if (isIP(bare) !== 6) return false;
  // The URL parser writes IPv6 in one canonical form: ::1, and 127.x.y.z mapped as ::ffff:7fxx:yyzz.
  const canonical = new URL(`http://[${bare}]/`).hostname.slice(1, -1);
  return canonical === "::1" || /^::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}$/.test(canonical);
}

/**
 * A URL or connection string as it may appear in any output: without its password, wherever the value
 * puts it. A password may hold `/`, `@`, `:` unencoded (the value is then no valid URL, and a URL parser
 * cannot say where it ends), so everything from the first `:` after the user to the LAST `@` goes; a
 * `password=` parameter (query string or key=value form) goes too. Over-redacting an odd value is fine;
 * printing a secret is not.
 */
export function redactSecrets(value: string): string {
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(value)?.[0] ?? "";
  let redacted = value;
  const at = value.lastIndexOf("@");
  const colon = value.indexOf(":", scheme.length);
  if (at > scheme.length && colon !== -1 && colon < at) {
    redacted = `${value.slice(0, colon)}:***${value.slice(at)}`;
  }
  return redacted.replace(/(password=)[^&\s]*/gi, "$1***");
}
