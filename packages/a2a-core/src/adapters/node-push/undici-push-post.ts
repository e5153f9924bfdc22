import type { Dispatcher } from "undici";
import { MAX_ANSWER_BYTES, type PushPost } from "../../runtime/push/push-post.js";

/** Parsed targets kept per URL string (a few receivers take most deliveries); cleared past this many. */
const MAX_TARGETS = 1_000;

/**
 * A `PushPost` on an undici dispatcher's `request`: the same connections as its `fetch` (the dispatcher's
 * pool per origin, keep-alive, its connect-time guard), without `fetch`'s WHATWG Request, Headers,
 * Response and body streams, which cost several times the POST itself per delivery. Never follows a
 * redirect (no redirect interceptor: a 3xx is an answer).
 */
export function undiciPushPost(dispatcher: Dispatcher): PushPost {
  const targets = new Map<string, { origin: string; path: string }>();
  const targetOf = (url: string) => {
    let target = targets.get(url);
    if (!target) {
      const parsed = new URL(url);
      // Credentials in a URL are refused at creation; fetch would refuse them here too.
      if (parsed.username !== "" || parsed.password !== "") throw new TypeError("push URL includes credentials");
      target = { origin: parsed.origin, path: `${parsed.pathname}${parsed.search}` };
      if (targets.size >= MAX_TARGETS) targets.clear();
      targets.set(url, target);
    }
    return target;
  };
  return async (request, signal) => {
    const { origin, path } = targetOf(request.url);
    const answer = await dispatcher.request({
      origin,
      path,
      method: "POST",
      headers: request.headers,
      body: request.body,
      signal,
    });
    const retryAfter = answer.headers["retry-after"];
    // Read so the connection is reused; a longer answer is cut (its connection closed). The status counts.
    // The request's `signal` still destroys the body when it aborts (undici keeps it until the body closes).
    await answer.body.dump({ limit: MAX_ANSWER_BYTES }).catch(() => undefined);
    return {
      status: answer.statusCode,
      retryAfter: typeof retryAfter === "string" ? retryAfter : (retryAfter?.[0] ?? null),
    };
  };
}
