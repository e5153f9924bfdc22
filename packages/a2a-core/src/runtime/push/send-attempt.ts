import type { PushFailureReason } from "../../telemetry/push-telemetry.js";
import type { PushPost } from "./push-post.js";
import type { PushRequest } from "./push-request.js";
import { retryAfterMs } from "./retry-schedule.js";

/** How one attempt ended. `abandoned`: the dispatcher closed past its grace; the lease decides. */
export type AttemptOutcome =
  | { kind: "delivered" }
  | { kind: "failed"; reason: PushFailureReason; error: string; retryAfterMs?: number }
  | { kind: "abandoned" };

/** A failure as recorded and logged is cut to this length. */
const MAX_ERROR_LENGTH = 300;

/**
 * POSTs one delivery and says how it went: any 2xx is delivered; a non-2xx status (with its
 * `Retry-After`), no answer within `timeoutMs` (connection to status line), or a failed connection is a
 * failure to retry. Redirects are not followed (a 3xx is a failure): a redirect could lead past the
 * destination check. Never throws.
 */
export async function sendAttempt(
  post: PushPost,
  request: PushRequest,
  timeoutMs: number,
  closed: AbortSignal,
  now: () => Date,
): Promise<AttemptOutcome> {
  // One controller, a timer and a listener: cheaper per attempt than AbortSignal.timeout + AbortSignal.any.
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new Error(`no answer within ${timeoutMs} ms`));
  }, timeoutMs);
  (timer as { unref?: () => void }).unref?.();
  const onClosed = () => controller.abort(closed.reason);
  if (closed.aborted) onClosed();
  else closed.addEventListener("abort", onClosed, { once: true });
  try {
    const answer = await post(request, controller.signal);
    if (answer.status >= 200 && answer.status < 300) return { kind: "delivered" };
    const after = retryAfterMs(answer.retryAfter, now());
    return {
      kind: "failed",
      reason: "status",
      error: `HTTP ${answer.status}`,
      ...(after === undefined ? {} : { retryAfterMs: after }),
    };
  } catch (error) {
    if (closed.aborted) return { kind: "abandoned" };
    if (timedOut) return { kind: "failed", reason: "timeout", error: `no answer within ${timeoutMs} ms` };
    return { kind: "failed", reason: "network", error: describeNetworkError(error) };
  } finally {
    clearTimeout(timer);
    closed.removeEventListener("abort", onClosed);
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
