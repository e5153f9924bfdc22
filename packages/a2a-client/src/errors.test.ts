import { http } from "msw";
import { describe, expect, it } from "vitest";
import {
  ENDPOINT,
  jsonRpcErrorResponse,
  jsonRpcResultResponse,
  sseResponse,
  task,
  taskFrames,
} from "../test/support/fixtures.js";
import { testClient as client, mockEndpoint } from "../test/support/mock-endpoint.js";
import { parseRetryAfter } from "./errors.js";
import {
  A2AError,
  A2AHttpError,
  APIConnectionError,
  APITimeoutError,
  AuthenticationError,
  BadRequestError,
  InternalError,
  InvalidParamsError,
  InvalidRequestError,
  InvalidResponseError,
  isA2AClientError,
  isA2AError,
  isA2AHttpError,
  MethodNotFoundError,
  NotFoundError,
  ParseError,
  PayloadTooLargeError,
  PermissionError,
  RateLimitError,
  ServerError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
} from "./index.js";

const { server, script } = mockEndpoint();

const rpcError = (status: number, headers: Record<string, string> = {}) =>
  jsonRpcErrorResponse(-32600, `refused with ${status}`, status, undefined, headers);

describe("HTTP failures", () => {
  it("401 is an AuthenticationError, not retried, with the server's message, status and headers", async () => {
    const seen = script(() => rpcError(401, { "www-authenticate": 'Bearer realm="a2a"' }));
    const { client: c } = client();
    const error = await c.getTask("t").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error).toBeInstanceOf(A2AHttpError);
    const http401 = error as AuthenticationError;
    expect(http401.status).toBe(401);
    expect(http401.headers.get("www-authenticate")).toBe('Bearer realm="a2a"');
    expect(http401.message).toBe("401 Unauthorized: refused with 401");
    expect(http401.code).toBe(-32600);
    expect(seen).toHaveLength(1);
  });

  it("403 is a PermissionError, also for a stream, and is not retried", async () => {
    const seen = script(() => rpcError(403));
    const { client: c } = client();
    const stream = c.sendStreamingMessage({ text: "x", storeId: "s" });
    await expect(stream.finished).rejects.toBeInstanceOf(PermissionError);
    expect(seen).toHaveLength(1);
  });

  it("429 waits as long as Retry-After says, then succeeds", async () => {
    const seen = script((n) => (n === 0 ? rpcError(429, { "retry-after": "2" }) : jsonRpcResultResponse(task())));
    const { client: c, delays, retries } = client();
    expect((await c.getTask("task-1")).id).toBe("task-1");
    expect(seen).toHaveLength(2);
    expect(delays).toEqual([2000]);
    expect(retries[0]?.error).toBeInstanceOf(RateLimitError);
  });

  it("429 that keeps coming ends as a RateLimitError carrying retryAfterMs", async () => {
    const seen = script(() => rpcError(429, { "retry-after-ms": "250" }));
    const { client: c, delays } = client({ maxRetries: 3 });
    const error = await c.getTask("t").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).retryAfterMs).toBe(250);
    expect(seen).toHaveLength(4);
    expect(delays).toEqual([250, 250, 250]);
  });

  it("a Retry-After longer than a minute is not waited out", async () => {
    const seen = script(() => rpcError(429, { "retry-after": "3600" }));
    const { client: c, delays } = client();
    const error = await c.getTask("t").catch((e: unknown) => e);
    expect((error as RateLimitError).retryAfterMs).toBe(3_600_000);
    expect(seen).toHaveLength(1);
    expect(delays).toEqual([]);
  });

  it("500 and 503 are retried maxRetries times with exponential backoff, then thrown as ServerError", async () => {
    const seen = script((n) => (n % 2 === 0 ? rpcError(503) : new Response("<html>oops</html>", { status: 500 })));
    const { client: c, delays } = client();
    const error = await c.getTask("t").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServerError);
    expect((error as ServerError).status).toBe(503);
    // A non-JSON error page never leaks into the message.
    expect((error as ServerError).message).toBe("503 Service Unavailable: refused with 503");
    expect(seen).toHaveLength(3);
    expect(delays).toEqual([500, 1000]);
  });

  it("a retried start keeps its messageId and asks for every event", async () => {
    const seen = script((n) => (n === 0 ? rpcError(502) : sseResponse(taskFrames())));
    const { client: c } = client();
    const stream = c.sendStreamingMessage({ text: "x", storeId: "s" });
    expect((await stream.finished).state).toBe("completed");
    const ids = seen.map((r) => (r.params.message as { messageId: string }).messageId);
    expect(ids[0]).toBe(ids[1]);
    expect(seen.map((r) => r.headers.get("last-event-id"))).toEqual([null, "0"]);
  });

  it("maps 400, 404 and 413 to their classes without retrying", async () => {
    for (const [status, ErrorClass] of [
      [400, BadRequestError],
      [404, NotFoundError],
      [413, PayloadTooLargeError],
    ] as const) {
      server.resetHandlers();
      const seen = script(() => rpcError(status));
      const { client: c } = client();
      await expect(c.getTask("t")).rejects.toBeInstanceOf(ErrorClass);
      expect(seen).toHaveLength(1);
    }
  });

  it("a refused connection is an APIConnectionError after maxRetries retries", async () => {
    const { client: c, delays } = client({ baseUrl: "http://127.0.0.1:9", fetch: undefined });
    server.use(http.post("http://127.0.0.1:9/api/v1/a2a", () => Response.error()));
    const error = await c.getTask("t").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIConnectionError);
    expect((error as Error).message).toMatch(/^Connection error/);
    expect(delays).toHaveLength(2);
  });

  it("a server that does not answer in time is an APITimeoutError", async () => {
    server.use(http.post(ENDPOINT, () => new Promise<Response>(() => {})));
    const { client: c } = client({ timeoutMs: 30, maxRetries: 1 });
    const error = await c.getTask("t").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APITimeoutError);
    expect(error).toBeInstanceOf(APIConnectionError);
    expect((error as Error).message).toBe("Request timed out after 30 ms");
  });

  it("an answer that is not JSON-RPC is an InvalidResponseError, not retried", async () => {
    const seen = script(
      () => new Response("<html>proxy page</html>", { status: 200, headers: { "content-type": "text/html" } }),
    );
    const { client: c } = client();
    await expect(c.getTask("t")).rejects.toBeInstanceOf(InvalidResponseError);
    await expect(c.sendStreamingMessage({ text: "x", storeId: "s" }).finished).rejects.toThrow(
      /Expected an event stream/,
    );
    expect(seen).toHaveLength(2);
  });
});

describe("JSON-RPC errors", () => {
  const cases = [
    [-32700, ParseError],
    [-32600, InvalidRequestError],
    [-32601, MethodNotFoundError],
    [-32602, InvalidParamsError],
    [-32603, InternalError],
    [-32001, TaskNotFoundError],
    [-32002, TaskNotCancelableError],
    [-32004, UnsupportedOperationError],
  ] as const;

  it.each(cases)("code %i becomes its class, with message and data, and is not retried", async (code, ErrorClass) => {
    const seen = script(() => jsonRpcErrorResponse(code, `error ${code}`, 200, { detail: code }));
    const { client: c } = client();
    const error = await c.getTask("t").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ErrorClass);
    expect(isA2AError(error)).toBe(true);
    expect((error as A2AError).code).toBe(code);
    expect((error as A2AError).message).toBe(`error ${code}`);
    expect((error as A2AError).data).toEqual({ detail: code });
    expect(seen).toHaveLength(1);
  });

  it("an unknown code is a plain A2AError with that code", async () => {
    script(() => jsonRpcErrorResponse(-32099, "custom"));
    const { client: c } = client();
    const error = await c.getTask("t").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(A2AError);
    expect((error as A2AError).code).toBe(-32099);
  });
});

describe("getTask and cancelTask", () => {
  it("getTask sends GetTask with id and historyLength and returns the Task", async () => {
    const seen = script(() => jsonRpcResultResponse(task("task-3", "completed")));
    const { client: c } = client();
    const result = await c.getTask("task-3", { historyLength: 0 });
    expect(result.status.state).toBe("completed");
    expect(seen[0]?.method).toBe("GetTask");
    expect(seen[0]?.params).toEqual({ id: "task-3", historyLength: 0 });
    expect(seen[0]?.headers.get("accept")).toBe("application/json");
    await expect(c.getTask("task-3", { historyLength: -1 })).rejects.toBeInstanceOf(TypeError);
  });

  it("a result that is not a Task is an InvalidResponseError", async () => {
    script(() => jsonRpcResultResponse({ kind: "task", id: 1 }));
    const { client: c } = client();
    await expect(c.getTask("t")).rejects.toBeInstanceOf(InvalidResponseError);
  });

  it("cancelTask returns the canceled task, and a TaskNotCancelableError carries the state", async () => {
    const seen = script((n) =>
      n === 0
        ? jsonRpcResultResponse(task("task-4", "canceled"))
        : jsonRpcErrorResponse(-32002, "Task cannot be canceled: it is already completed", 200, {
            taskId: "task-4",
            state: "completed",
          }),
    );
    const { client: c } = client();
    expect((await c.cancelTask("task-4")).status.state).toBe("canceled");
    expect(seen[0]?.method).toBe("CancelTask");
    expect(seen[0]?.params).toEqual({ id: "task-4" });
    const error = await c.cancelTask("task-4").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TaskNotCancelableError);
    expect((error as TaskNotCancelableError).data).toMatchObject({ state: "completed" });
  });

  it("a cancel whose first attempt went through but whose answer was lost returns the canceled task", async () => {
    const seen = script((n, request) => {
      if (n === 0) return rpcError(502);
      if (request.method === "CancelTask") {
        return jsonRpcErrorResponse(-32002, "already canceled", 200, { taskId: "task-5", state: "canceled" });
      }
      return jsonRpcResultResponse(task("task-5", "canceled"));
    });
    const { client: c } = client();
    expect((await c.cancelTask("task-5")).status.state).toBe("canceled");
    expect(seen.map((r) => r.method)).toEqual(["CancelTask", "CancelTask", "GetTask"]);
  });
});

describe("error classes", () => {
  it("are recognised by brand, so checks hold across module copies", () => {
    const error = A2AHttpError.from(429, new Headers({ "retry-after": "1.5" }), undefined);
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error.name).toBe("RateLimitError");
    expect((error as RateLimitError).retryAfterMs).toBe(1500);
    expect(isA2AClientError(error)).toBe(true);
    expect(isA2AHttpError(error)).toBe(true);
    expect(isA2AHttpError(new APIConnectionError())).toBe(false);
    expect(isA2AClientError(new Error("x"))).toBe(false);
    expect(A2AHttpError.from(418, new Headers(), undefined).message).toBe("418 HTTP error");
  });

  it("parseRetryAfter reads milliseconds, seconds and HTTP dates, and ignores garbage", () => {
    const now = () => Date.parse("2025-01-01T00:00:00Z");
    expect(parseRetryAfter(new Headers({ "retry-after-ms": "120" }), now)).toBe(120);
    expect(parseRetryAfter(new Headers({ "retry-after": "3" }), now)).toBe(3000);
    expect(parseRetryAfter(new Headers({ "retry-after": "Wed, 01 Jan 2025 00:00:10 GMT" }), now)).toBe(10_000);
    expect(parseRetryAfter(new Headers({ "retry-after": "soon" }), now)).toBeUndefined();
    expect(parseRetryAfter(new Headers({ "retry-after": "-5" }), now)).toBeUndefined();
    expect(parseRetryAfter(new Headers(), now)).toBeUndefined();
  });
});
