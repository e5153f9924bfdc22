/**
 * A request turned away before it was answered on its merits (auth, rate, stream cap, load, shutdown).
 * Each binding renders it in its own envelope, with the status and `Retry-After` it carries.
 */
export interface Refusal {
  kind: "refusal";
  /** 401 / 403: the credential; 429: the caller's rate or streams; 503: the server (busy, closing, an outage). */
  status: 401 | 403 | 429 | 503;
  message: string;
  /** When the caller may retry (429; 503 always answers one second). */
  retryAfterMs?: number;
}

export function isRefusal(value: unknown): value is Refusal {
  return typeof value === "object" && value !== null && (value as { kind?: unknown }).kind === "refusal";
}
