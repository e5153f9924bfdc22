const UNIT_SECONDS = { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 } as const;

/** Longest lifetime `--expires-in` accepts: past it, "never expires" is the honest setting. */
export const MAX_DURATION_SECONDS = 10 * 365 * 86_400;

/**
 * `30d`, `12h`, `90m`, `2w`, `45s` → seconds; undefined for anything else (zero, a bare number, a
 * fraction, several units, more than ten years), so a typo never becomes a token that lives forever.
 */
export function parseDuration(text: string): number | undefined {
  const match = /^(\d{1,9})([smhdw])$/.exec(text.trim());
  if (!match) return undefined;
  const seconds = Number(match[1]) * UNIT_SECONDS[match[2] as keyof typeof UNIT_SECONDS];
  return seconds > 0 && seconds <= MAX_DURATION_SECONDS ? seconds : undefined;
}
