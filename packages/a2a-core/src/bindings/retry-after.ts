/** `Retry-After` (whole seconds, at least one) and `Retry-After-Ms` for a refusal the caller may retry. */
export function retryAfterHeaders(retryAfterMs: number): Record<string, string> {
  return {
    "retry-after": String(Math.max(1, Math.ceil(retryAfterMs / 1000))),
    "retry-after-ms": String(retryAfterMs),
  };
}
