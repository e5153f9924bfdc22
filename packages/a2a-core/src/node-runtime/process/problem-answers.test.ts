import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { notFoundAnswer, problemOnError } from "./problem-answers.js";

/** One request to a server that answers with `handle`. */
async function answer(handle: (req: IncomingMessage, res: ServerResponse) => void) {
  const server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/nowhere`);
    return { status: response.status, headers: response.headers, body: await response.json() };
  } finally {
    server.close();
  }
}

describe("problem answers", () => {
  it("answer 404 as application/problem+json", async () => {
    const { status, headers, body } = await answer(notFoundAnswer);
    expect(status).toBe(404);
    expect(headers.get("content-type")).toBe("application/problem+json; charset=utf-8");
    expect(body).toEqual({ type: "about:blank", title: "Not Found", status: 404 });
  });

  it("take four parameters, as Express recognises an error handler", () => {
    expect(problemOnError({ error: () => {} }).length).toBe(4);
  });

  it("keep an error's own HTTP status, unlogged", async () => {
    const logged: unknown[] = [];
    const onError = problemOnError({ error: (obj) => logged.push(obj) });
    const tooLarge = Object.assign(new Error("request entity too large"), { status: 413 });
    const { status, body } = await answer((req, res) => onError(tooLarge, req, res, () => {}));
    expect(status).toBe(413);
    expect(body).toEqual({ type: "about:blank", title: "Payload Too Large", status: 413 });
    expect(logged).toEqual([]);
  });

  it("answer anything else 503 with Retry-After, logged, nothing of the cause in the body", async () => {
    const logged: unknown[] = [];
    const onError = problemOnError({ error: (obj) => logged.push(obj) });
    const outage = new Error("connection to 10.0.0.5 refused");
    const { status, headers, body } = await answer((req, res) => onError(outage, req, res, () => {}));
    expect(status).toBe(503);
    expect(headers.get("retry-after")).toBe("1");
    expect(body).toEqual({
      type: "about:blank",
      title: "Service Unavailable",
      status: 503,
      detail: "Temporarily unavailable; retry the request",
    });
    expect(logged).toEqual([{ err: outage }]);
  });
});
