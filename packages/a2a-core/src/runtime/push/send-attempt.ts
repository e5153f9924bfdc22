import type { PushFailureReason } from "../../telemetry/push-telemetry.js";
import type { PushRequest } from "./push-request.js";
import { retryAfterMs } from "./retry-schedule.js";

/** How one attempt ended. `abandoned`: the dispatcher closed past its grace; the lease decides. */
export type AttemptOutcome =
  | { kind: "delivered" }
  | { kind: "failed"; reason: PushFailureReason; error: string; retryAfterMs?: number }
  | { kind: "abandoned" };

/** A receiver's answer body is read up to this much (so its connection can be reused), then dropped. */
const MAX_ANSWER_BYTES = 64 * 1024;
/** A failure as recorded and logged is cut to this length. */
const MAX_ERROR_LENGTH = 300;

/**
 * POSTs one delivery and says how it went: any 2xx is delivered; a non-2xx status (with its
 * `Retry-After`), no answer within `timeoutMs` (connection to status line), or a failed connection is a
 * failure to retry. Redirects are not followed (a 3xx is a failure): a redirect could lead past the
 * destination check. Never throws.
 */
export async function sendAttempt(
  send: typeof fetch,
  request: PushRequest,
  timeoutMs: number,
  closed: AbortSignal,
  now: () => Date,
): Promise<AttemptOutcome> {
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = AbortSignal.any([timeout, closed]);
  try {
    const response = await send(request.url, {
      method: "POST",
      headers: request.headers,
      body: request.body,
      signal,
      redirect: "manual",
    });
    await discardBody(response);
    if (response.status >= 200 && response.status < 300) return { kind: "delivered" };
    const after = retryAfterMs(response.headers.get("retry-after"), now());
    return {
      kind: "failed",
      reason: "status",
      error: `HTTP ${response.status}`,
      ...(after === undefined ? {} : { retryAfterMs: after }),
    };
  } catch (error) {
    if (closed.aborted) return { kind: "abandoned" };
    if (timeout.aborted) return { kind: "failed", reason: "timeout", error: `no answer within ${timeoutMs} ms` };
    return { kind: "failed", reason: "network", error: describeNetworkError(error) };
  }
}

/** Reads what the receiver answered, up to a bound, and drops it; an error here changes nothing. */
async function discardBody(response: Response): Promise<void> {
  const reader = response.body?.getReader();
  if (!reader) return;
  try {
    let read = 0;
    while (read <= MAX_ANSWER_BYTES) {
      const chunk = await reader.read();
      if (chunk.done) return;
      read += chunk.value.byteLength;
    }
    await reader.cancel();
  } catch {
    // The status is what counts; a body cut short or timed out afterwards does not undo it.
  }
}

/** `fetch failed: connect ECONNREFUSED 127.0.0.1:8080`: the error and its cause, never the URL. */
function describeNetworkError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const cause = error instanceof Error ? (error.cause as { message?: unknown; code?: unknown } | undefined) : undefined;
  const causeText =
    typeof cause?.message === "string" ? cause.message : typeof cause?.code === "string" ? cause.code : "";
  const text = causeText && causeText !== message ? `${message}: ${causeText}` : message;
  return text.length > MAX_ERROR_LENGTH ? `${text.slice(0, MAX_ERROR_LENGTH)}…` : text;
}
