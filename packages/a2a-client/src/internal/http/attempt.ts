import { isA2AError } from "@a2a-partner/a2a-core";
import { APIConnectionError, APITimeoutError, APIUserAbortError, isA2AClientError } from "../../errors.js";

/** Why an attempt was aborted: the caller, the request timeout, or a silent stream. */
export type AbortCause = "user" | "timeout" | "idle";

/**
 * The AbortSignal of one HTTP attempt. It aborts when the caller's signal does or when a timer runs out,
 * and remembers which, so that a failed `fetch` or body read
 * can be told apart: a user abort is final, a timeout or a dropped connection may be retried.
 */
export class Attempt {
  readonly #controller = new AbortController();
  readonly #userSignal: AbortSignal | undefined;
  readonly #onUserAbort = () => this.abort("user");
  #cause: AbortCause | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #timerMs = 0;

  constructor(userSignal?: AbortSignal) {
    this.#userSignal = userSignal;
    if (userSignal?.aborted) this.abort("user");
    else userSignal?.addEventListener("abort", this.#onUserAbort, { once: true });
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  get cause(): AbortCause | undefined {
    return this.#cause;
  }

  abort(cause: AbortCause): void {
    if (this.#controller.signal.aborted) return;
    this.#cause = cause;
    this.clearTimer();
    this.#controller.abort(new DOMException(`aborted (${cause})`, "AbortError"));
  }

  /** (Re)starts the timer; when it runs out the attempt aborts with `cause`. 0 or Infinity: no timer. */
  startTimer(ms: number, cause: "timeout" | "idle"): void {
    this.clearTimer();
    if (!(ms > 0) || !Number.isFinite(ms) || this.signal.aborted) return;
    this.#timerMs = ms;
    this.#timer = setTimeout(() => this.abort(cause), ms);
  }

  clearTimer(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  dispose(): void {
    this.clearTimer();
    this.#userSignal?.removeEventListener("abort", this.#onUserAbort);
  }

  /** Maps whatever a fetch or a body read threw to the client's error classes. */
  toError(error: unknown): Error {
    switch (this.#cause) {
      case "user":
        return new APIUserAbortError();
      case "timeout":
        return new APITimeoutError(`Request timed out after ${this.#timerMs} ms`);
      case "idle":
        return new APITimeoutError(`No data on the stream for ${this.#timerMs} ms`);
      case undefined:
        if (isA2AClientError(error) || isA2AError(error)) return error as Error;
        return new APIConnectionError(`Connection error: ${describeCause(error)}`, { cause: error });
    }
  }
}

/** A short, stack-free description of a network failure (undici puts the errno code in `cause`). */
function describeCause(error: unknown): string {
  if (!(error instanceof Error)) return "unknown error";
  const inner = error.cause;
  if (inner && typeof inner === "object") {
    const code = (inner as { code?: unknown }).code;
    const message = (inner as { message?: unknown }).message;
    if (typeof code === "string") return `${error.message} (${code})`;
    if (typeof message === "string" && message.length > 0) return `${error.message}: ${message}`;
  }
  return error.message || error.name;
}
