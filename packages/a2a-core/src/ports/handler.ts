import type { HeaderReader } from "../protocol/header-reader.js";
import type { A2AHandlerResponse } from "./handler-response.js";

export interface A2AHandlerRequest {
  /** The request headers: a web `Headers`, or anything with the same `get`. */
  headers: HeaderReader;
  /**
   * The raw request body, or a function that reads it. A function is called only once the caller is
   * authenticated and within its rate, so an anonymous request never costs a body read; it rejects with
   * a `BodyReadError` for a body over the limit or not UTF-8.
   */
  body: string | (() => Promise<string>);
  /**
   * The request URL (absolute, or path and query): a path that is an HTTP+JSON route below the base path
   * (`/message:stream`, `/tasks/{id}`, …) is answered by that binding, the endpoint's own path by JSON-RPC;
   * its `A2A-Version` query parameter chooses the dialect when the header does not (docs/interop.md).
   */
  url?: string;
  /**
   * The path the endpoint is mounted at (`/api/v1/a2a`): routes must be exactly below it. Default: the
   * handler's `basePath`; without either, the URL's path is taken as already relative to the mount (as
   * Express's `app.use(path, …)` hands it over).
   */
  basePath?: string;
  /** The HTTP method (`GET`, `POST`, …). Default `POST`; JSON-RPC answers anything else with 405. */
  method?: string;
}

/** What the adapters mount: the assembled handler (`createA2AHandler`). */
export interface A2AHandler {
  /** Answers one request of either binding (JSON-RPC, HTTP+JSON): a JSON response or an SSE stream. Never throws. */
  handle(request: A2AHandlerRequest): Promise<A2AHandlerResponse>;
  /** The handler on web-standard Request/Response (Bun, Deno, edge runtimes, hono); see `toFetchHandler`. */
  fetch(request: Request): Promise<Response>;
  /** Largest request body the adapters accept. */
  readonly maxBodyBytes: number;
  /**
   * Whether push notifications are on (`stores.push` given, `push` not `false`): what the agent card's
   * `capabilities.pushNotifications` says (`AgentCardInput.pushNotifications`).
   */
  readonly pushNotifications: boolean;
  /** Ends orphaned tasks now (it also runs periodically); returns how many it ended. */
  recoverOrphanedTasks(): Promise<number>;
  /**
   * Graceful shutdown: ends open streams cleanly (clients reattach elsewhere), waits up to `graceMs` for
   * running tasks, then ends the rest `failed` so none stays `working`.
   */
  close(options?: { graceMs?: number }): Promise<void>;
}
