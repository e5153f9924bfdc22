import type { PushRequest } from "./push-request.js";

/** What an attempt needs of the receiver's answer: its status and `Retry-After`. */
export interface PushAnswer {
  status: number;
  retryAfter: string | null;
}

/**
 * Sends one push request (redirects not followed) and resolves once the answer's status is in and its
 * body read (up to `MAX_ANSWER_BYTES`) or dropped; rejects when the connection fails or `signal` aborts.
 */
export type PushPost = (request: PushRequest, signal: AbortSignal) => Promise<PushAnswer>;

/**
 * A `fetch` given as `push.fetch` may carry a cheaper sender for deliveries under this key (the Node
 * entry's `guardedPushFetch` does: undici's `Dispatcher.request` without WHATWG Request/Response/stream
 * objects, a few times cheaper per POST). `Symbol.for`, so both entries' bundles see the same key.
 */
export const PUSH_POST = Symbol.for("@a2a-partner/a2a-core.push-post");

/** A receiver's answer body is read up to this much (so its connection can be reused), then dropped. */
export const MAX_ANSWER_BYTES = 64 * 1024;

/** The sender of `send`: the one it carries under `PUSH_POST`, else `send` itself as a `fetch`. */
export function pushPostOf(send: typeof fetch): PushPost {
  const carried = (send as { [PUSH_POST]?: unknown })[PUSH_POST];
  if (typeof carried === "function") return carried as PushPost;
  return async (request, signal) => {
    const response = await send(request.url, {
      method: "POST",
      headers: request.headers,
      body: request.body,
      signal,
      redirect: "manual",
    });
    await discardBody(response);
    return { status: response.status, retryAfter: response.headers.get("retry-after") };
  };
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
