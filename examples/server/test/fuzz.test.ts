import { request as httpRequest } from "node:http";
import { connect } from "node:net";
import { A2A_LIMITS, ERROR_CODES } from "@a2a-partner/a2a-core";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "./support/backends.ts";
import { envelope, post, startParams } from "./support/rpc.ts";
import { startTestServer, type TestServer } from "./support/test-server.ts";

// Bodies a broken or hostile client might send: not JSON, JSON of the wrong shape, the right shape with
// wrong types in every field, huge numbers, deep nesting, odd unicode.
const anyJson = fc.jsonValue({ maxDepth: 4 });
const wrongTypes = fc.oneof(
  fc.constant(null),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.string(),
  fc.array(fc.string()),
  fc.object(),
  fc.bigInt().map(String),
);
const taskParams = fc.oneof(
  wrongTypes,
  fc.record({ id: wrongTypes, historyLength: wrongTypes }),
  fc.record({
    message: fc.oneof(wrongTypes, fc.record({ role: wrongTypes, messageId: wrongTypes, parts: wrongTypes })),
    metadata: fc.oneof(wrongTypes, fc.record({ storeId: wrongTypes })),
  }),
  fc.record({
    message: fc.record({
      role: fc.constant("user"),
      messageId: fc.oneof(fc.string(), fc.string({ unit: "grapheme" })),
      parts: fc.array(
        fc.record({
          kind: fc.constantFrom("text", "file", "data", "x"),
          text: fc.oneof(wrongTypes, fc.string({ unit: "grapheme" })),
          file: wrongTypes,
          data: wrongTypes,
        }),
      ),
    }),
    metadata: fc.record({ storeId: fc.oneof(fc.string(), fc.constant("store-001")) }),
  }),
);
// Valid task starts with one field made unstorable (a lone UTF-16 surrogate, which PostgreSQL refuses) or
// past its documented bound (A2A_LIMITS), or with far too many parts. Each carries the answer it must get.
const L = A2A_LIMITS;
const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((unit) => String.fromCharCode(unit));
const FIELDS = {
  text: { limit: L.textBytes, at: ["message", "parts", 0, "text"], over: "params.message.parts.0.text" },
  messageId: { limit: L.idLength, at: ["message", "messageId"], over: "params.message.messageId" },
  contextId: { limit: L.idLength, at: ["message", "contextId"], over: "params.message.contextId" },
  taskId: { limit: L.idLength, at: ["message", "taskId"], over: "params.message.taskId" },
  storeId: { limit: L.idLength, at: ["metadata", "storeId"], over: "params.metadata.storeId" },
  metadataValue: { limit: L.metadataBytes, at: ["metadata", "note"], over: "params.metadata" },
  partMetadata: {
    limit: L.metadataBytes,
    at: ["message", "parts", 0, "metadata", "v"],
    over: "params.message.parts.0.metadata",
  },
  dataPart: {
    limit: L.partContentBytes,
    at: ["message", "parts", 1, "data", "v"],
    over: "params.message.parts.1.data",
  },
  metadataKey: { limit: L.metadataBytes, at: ["metadata"], over: "params.metadata" },
} as const;
type BrokenStart = { body: string; field: string };
const brokenStart: fc.Arbitrary<BrokenStart> = fc.oneof(
  fc
    .record({
      field: fc.constantFrom(...(Object.keys(FIELDS) as Array<keyof typeof FIELDS>)),
      surrogate: fc.option(fc.tuple(fc.string({ maxLength: 8 }), loneSurrogate, fc.string({ maxLength: 8 })), {
        nil: undefined,
      }),
      // Mostly just past the bound; now and then far past it (up to ~900 KB, past the body limit too).
      extra: fc.oneof({ arbitrary: fc.nat(20_000), weight: 9 }, { arbitrary: fc.nat(900_000), weight: 1 }),
    })
    .map(({ field, surrogate, extra }) => {
      const { limit, at, over } = FIELDS[field];
      const value = surrogate ? surrogate.join("") : "x".repeat(limit + 1 + extra);
      const params = {
        message: { role: "user", messageId: "fuzz", parts: [{ kind: "text", text: "Restock aisle 5" }] as unknown[] },
        metadata: { storeId: "store-001" } as Record<string, unknown>,
      };
      if (field === "dataPart") params.message.parts.push({ kind: "data", data: {} });
      if (field === "metadataKey") params.metadata[value] = 1;
      else setPath(params, at, value);
      const path = [...at, ...(field === "metadataKey" ? [value.toWellFormed()] : [])];
      return {
        body: JSON.stringify(envelope("SendStreamingMessage", params)),
        field: surrogate ? `params.${path.join(".")}` : over,
      };
    }),
  fc.integer({ min: L.parts + 1, max: 1000 }).map((n) => ({
    body: JSON.stringify(
      envelope("SendStreamingMessage", {
        message: { role: "user", parts: Array.from({ length: n }, (_, i) => ({ kind: "text", text: `step ${i}` })) },
        metadata: { storeId: "store-001" },
      }),
    ),
    field: "params.message.parts",
  })),
);

function setPath(root: object, path: ReadonlyArray<string | number>, value: unknown): void {
  let at = root as Record<string | number, unknown>;
  for (const key of path.slice(0, -1)) {
    at[key] ??= {};
    at = at[key] as Record<string | number, unknown>;
  }
  at[path.at(-1) as string | number] = value;
}

const method = fc.oneof(
  fc.constantFrom(
    "SendStreamingMessage",
    "message/stream",
    "GetTask",
    "tasks/get",
    "CancelTask",
    "tasks/cancel",
    "SubscribeToTask",
    "tasks/resubscribe",
    "SendMessage",
    "GetExtendedAgentCard",
  ),
  fc.string(),
);
const malformedBody = fc.oneof(
  fc.string({ unit: "binary", maxLength: 300 }),
  fc.string({ maxLength: 200 }).map((s) => `{"jsonrpc":"2.0","id":1,${s}`),
  anyJson.map((v) => JSON.stringify(v)),
  fc
    .record({ jsonrpc: wrongTypes, id: wrongTypes, method: wrongTypes, params: wrongTypes })
    .map((v) => JSON.stringify(v)),
  fc
    .record({ id: fc.oneof(fc.string(), fc.integer(), wrongTypes), method, params: taskParams })
    .map(({ id, method, params }) => JSON.stringify({ jsonrpc: "2.0", id, method, params })),
  fc.integer({ min: 1, max: 20_000 }).map((n) => `${"[".repeat(n)}${"]".repeat(n)}`),
  fc
    .integer({ min: 1, max: 20_000 })
    .map(
      (n) =>
        `{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"x","metadata":${'{"a":'.repeat(n)}1${"}".repeat(n)}}}`,
    ),
  fc
    .integer({ min: 1, max: 5000 })
    .map((n) => `{"jsonrpc":"2.0","id":${"9".repeat(n)},"method":"GetTask","params":{"id":${"9".repeat(n)}}}`),
  brokenStart.map(({ body }) => body),
  fc.constantFrom(
    "",
    "null",
    "[]",
    "{}",
    '"\\u0000"',
    "\uFEFF{}",
    '{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"\\ud800"}}',
    "1e999999",
  ),
);

// Header abuse on top of a body: odd tokens, odd Last-Event-IDs, wrong content types, long values.
const abusiveHeaders = fc.record(
  {
    authorization: fc.oneof(
      fc.constant("TOKEN"),
      fc.constantFrom("Bearer", "Bearer ", "bearer TOKEN", "Basic dXNlcjpwYXNz", "Bearer TOKEN extra", "Bearer  TOKEN"),
      fc.string({ maxLength: 40 }).map((s) => `Bearer ${s.replace(/[^\x20-\x7e]/g, "")}`),
      fc.integer({ min: 1, max: 8000 }).map((n) => `Bearer ${"a".repeat(n)}`),
    ),
    "last-event-id": fc.oneof(
      fc.constantFrom("-1", "0", "1e9", "99999999999999999999", "NaN", "", " 3 ", "1,2"),
      fc.string({ maxLength: 20 }).map((s) => s.replace(/[^\x20-\x7e]/g, "")),
    ),
    "content-type": fc.constantFrom(
      "application/json",
      "text/plain",
      "application/x-www-form-urlencoded",
      "multipart/form-data; boundary=x",
      "",
      "application/json; charset=latin1",
    ),
    accept: fc.constantFrom("text/event-stream", "application/json", "*/*", "image/png"),
    "a2a-version": fc.constantFrom("1.0", "0.3", "garbage", "99"),
  },
  { requiredKeys: ["authorization"] },
);

const metricsPath = fc.record({
  workspace: fc.oneof(
    fc.constantFrom("demo", "other-co", "WORKSPACE", "00000000-0000-0000-0000-000000000000", "%00", "..", "%2e%2e%2f"),
    fc.string({ maxLength: 60 }),
    fc.uuid(),
  ),
  query: fc.array(
    fc.tuple(
      fc.constantFrom("start_timestamp", "end_timestamp", "x", "start_timestamp[]"),
      fc.oneof(
        fc.string({ maxLength: 40 }),
        fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
        fc.constantFrom("2026-01-01", "2026-02-30", "9999-12-31T23:59:59Z", "0000-01-01", "+275760-09-13T00:00:00Z"),
      ),
    ),
    { maxLength: 3 },
  ),
});

describe("fuzz: 11,000 malformed or hostile requests (PGlite)", () => {
  let database: TestDatabase;
  let server: TestServer;

  beforeAll(async () => {
    database = await createTestDatabase("pglite");
    // The per-token rate limit would answer most of these with 429; the point here is every other path.
    server = await startTestServer(database.db, { rateLimitPerSecond: 0 });
  });
  afterAll(async () => {
    await server?.stop();
    await database?.drop();
  });

  async function send(body: string, headers: Record<string, string>): Promise<{ status: number; text: string }> {
    const res = await fetch(server.a2aUrl, { method: "POST", headers, body });
    return { status: res.status, text: await res.text() };
  }

  function checkAnswer(answer: { status: number; text: string }) {
    expect(answer.status).toBeLessThan(500);
    // No stack trace, driver message or SQL in any answer.
    expect(answer.text).not.toMatch(/\n\s+at |node_modules|syntax error at|relation "|select .* from|ECONN/i);
  }

  it("answers 8,000 hostile A2A requests without a 5xx, a crash or a leak of internals", async () => {
    const cases = fc.sample(fc.tuple(malformedBody, abusiveHeaders), { numRuns: 8000, seed: 61 });
    for (let i = 0; i < cases.length; i += 50) {
      const answers = await Promise.all(
        cases.slice(i, i + 50).map(([body, headers]) => {
          const real = {
            ...headers,
            authorization: headers.authorization.replace("TOKEN", server.seeded.partnerToken),
          };
          return send(body, real);
        }),
      );
      for (const answer of answers) checkAnswer(answer);
    }
  }, 240_000);

  it("answers 1,000 starts with lone surrogates, oversized fields or many parts: -32602 naming the field, or 413", async () => {
    const cases = fc.sample(brokenStart, { numRuns: 1000, seed: 64 });
    for (let i = 0; i < cases.length; i += 50) {
      const answers = await Promise.all(
        cases.slice(i, i + 50).map(async ({ body, field }) => {
          const res = await fetch(server.a2aUrl, {
            method: "POST",
            headers: { authorization: `Bearer ${server.seeded.partnerToken}`, "content-type": "application/json" },
            body,
          });
          const text = await res.text();
          return { status: res.status, text, body, field };
        }),
      );
      for (const answer of answers) {
        checkAnswer(answer);
        if (Buffer.byteLength(answer.body) > L.maxBodyBytes) {
          expect(answer.status).toBe(413);
          continue;
        }
        const error = JSON.parse(answer.text).error;
        expect({ status: answer.status, code: error?.code, field: error?.data?.field }).toEqual({
          status: 200,
          code: ERROR_CODES.InvalidParams,
          field: answer.field,
        });
      }
    }
  }, 120_000);

  it("answers 1,500 hostile metrics requests without a 5xx", async () => {
    const cases = fc.sample(fc.tuple(metricsPath, abusiveHeaders), { numRuns: 1500, seed: 62 });
    for (let i = 0; i < cases.length; i += 50) {
      const answers = await Promise.all(
        cases.slice(i, i + 50).map(async ([{ workspace, query }, headers]) => {
          const search = new URLSearchParams(query).toString();
          const url = `${server.url}/api/v1/metrics/events/${encodeURIComponent(workspace)}${search ? `?${search}` : ""}`;
          const res = await fetch(url, {
            headers: { ...headers, authorization: headers.authorization.replace("TOKEN", server.seeded.userToken) },
          });
          return { status: res.status, text: await res.text() };
        }),
      );
      for (const answer of answers) checkAnswer(answer);
    }
  }, 120_000);

  it("survives 500 broken HTTP conversations on raw sockets", async () => {
    const { port } = new URL(server.url);
    const garbage = fc.sample(
      fc.oneof(
        fc.string({ unit: "binary", maxLength: 500 }),
        fc.constantFrom(
          "POST /api/v1/a2a HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n{}",
          "POST /api/v1/a2a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
          "POST /api/v1/a2a HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 7\r\n\r\n{}",
          `GET /${"a".repeat(70_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
          `POST /api/v1/a2a HTTP/1.1\r\nHost: x\r\nX-Big: ${"b".repeat(20_000)}\r\n\r\n`,
          "POST /api/v1/a2a HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \u00ff\u00fe\r\nContent-Length: 2\r\n\r\n{}",
        ),
      ),
      { numRuns: 500, seed: 63 },
    );
    const statuses: number[] = [];
    for (let i = 0; i < garbage.length; i += 50) {
      await Promise.all(
        garbage.slice(i, i + 50).map(
          (payload) =>
            new Promise<void>((resolve) => {
              const socket = connect(Number(port), "127.0.0.1", () => socket.end(Buffer.from(payload, "latin1")));
              socket.setTimeout(2000, () => socket.destroy());
              socket.on("data", (chunk) => {
                const status = /^HTTP\/1\.1 (\d{3})/.exec(chunk.toString("latin1"))?.[1];
                if (status) statuses.push(Number(status));
              });
              socket.on("error", () => resolve());
              socket.on("close", () => resolve());
            }),
        ),
      );
    }
    expect(statuses.length).toBeGreaterThan(0);
    expect(statuses.filter((status) => status >= 500)).toEqual([]);
    // A header with bytes outside ASCII through node's client, which allows latin1.
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(
        `${server.a2aUrl}`,
        { method: "POST", headers: { authorization: "Bearer \u00e9\u00e8", "last-event-id": "\u00ff" } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on("error", reject);
      req.end("{}");
    });
    expect(status).toBe(401);
  }, 120_000);

  it("still serves a real task afterwards", async () => {
    const res = await post(server.a2aUrl, envelope("SendStreamingMessage", startParams()), server.seeded.partnerToken);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("event: finished");
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });
});
