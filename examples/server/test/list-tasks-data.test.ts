import { ERROR_CODES } from "@a2a-partner/a2a-core";
import { describe, expect, it } from "vitest";
import { type Backend, postgresAvailable } from "./support/backends.ts";
import { envelope, post } from "./support/rpc.ts";
import { serverPerSuite } from "./support/server-per-suite.ts";

const backends: Backend[] = ["pglite", ...((await postgresAvailable()) ? (["postgres"] as const) : [])];

/** A page token as this server writes one (version 1, timestamp, task id), with a timestamp of our choosing. */
function pageToken(statusTimestamp: string): string {
  return Buffer.from(JSON.stringify([1, statusTimestamp, crypto.randomUUID()])).toString("base64url");
}

// ListTasks filters that reach SQL but that PostgreSQL cannot read used to come back 503 + Retry-After:
// clients retried a request that can never succeed. Each is the caller's mistake: -32602, HTTP 200.
describe.each(backends)("ListTasks with values PostgreSQL cannot read, on %s", (backend) => {
  const suite = serverPerSuite(backend, { rateLimitPerSecond: 0 });

  it.each([
    ["a contextId holding U+0000", { contextId: "ctx\u0000one" }],
    ["a statusTimestampAfter in year 0000", { statusTimestampAfter: "0000-06-01T00:00:00Z" }],
    ["a statusTimestampAfter an offset carries into year 0", { statusTimestampAfter: "0001-01-01T00:00:00+14:00" }],
    ["a page token whose timestamp is in year 0000", { pageToken: pageToken("0000-01-01T00:00:00Z") }],
  ])("answers %s with -32602 in both dialects", async (_what, params) => {
    for (const version of ["0.3", "1.0"]) {
      const res = await post(suite.server.a2aUrl, envelope("ListTasks", params), suite.server.seeded.partnerToken, {
        "a2a-version": version,
      });
      const body = await res.json();
      expect({
        version,
        status: res.status,
        retryAfter: res.headers.get("retry-after"),
        code: body.error?.code,
      }).toEqual({
        version,
        status: 200,
        retryAfter: null,
        code: ERROR_CODES.InvalidParams,
      });
    }
  });

  it("still lists with a well-formed filter of the same kind", async () => {
    const res = await post(
      suite.server.a2aUrl,
      envelope("ListTasks", { contextId: "ctx-one", statusTimestampAfter: "0001-01-01T00:00:00Z" }),
      suite.server.seeded.partnerToken,
    );
    const body = await res.json();
    expect(body.result).toMatchObject({ tasks: [], totalSize: 0 });
  });
});
