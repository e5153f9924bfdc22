import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "./support/backends.ts";
import { envelope, post, startParams } from "./support/rpc.ts";
import { startTestServer, type TestServer } from "./support/test-server.ts";

// Bodies a broken or hostile client might send: not JSON, JSON of the wrong shape, the right shape with
// wrong types in every field, huge and deep values, odd unicode.
const anyJson = fc.jsonValue({ maxDepth: 4 });
const wrongTypes = fc.oneof(fc.constant(null), fc.integer(), fc.double(), fc.boolean(), fc.string(), fc.array(fc.string()), fc.object());
const malformedBody = fc.oneof(
  fc.string({ unit: "binary", maxLength: 200 }),
  fc.string({ maxLength: 200 }).map((s) => `{"jsonrpc":"2.0","id":1,${s}`),
  anyJson.map((v) => JSON.stringify(v)),
  fc.record({ jsonrpc: wrongTypes, id: wrongTypes, method: wrongTypes, params: wrongTypes }).map((v) => JSON.stringify(v)),
  fc
    .record({
      method: fc.constantFrom("SendStreamingMessage", "message/stream", "GetTask", "CancelTask", "SubscribeToTask", "tasks/get"),
      params: fc.oneof(
        wrongTypes,
        fc.record({ id: wrongTypes, historyLength: wrongTypes }),
        fc.record({ message: fc.oneof(wrongTypes, fc.record({ role: wrongTypes, messageId: wrongTypes, parts: wrongTypes })), metadata: fc.oneof(wrongTypes, fc.record({ storeId: wrongTypes })) }),
        fc.record({ message: fc.record({ role: fc.constant("user"), parts: fc.array(fc.record({ kind: fc.constantFrom("text", "file", "data", "x"), text: wrongTypes, file: wrongTypes, data: wrongTypes })) }), metadata: fc.record({ storeId: fc.string() }) }),
      ),
    })
    .map(({ method, params }) => JSON.stringify(envelope(method, params))),
  fc.integer({ min: 1, max: 5000 }).map((n) => `${"[".repeat(n)}${"]".repeat(n)}`),
  fc.integer({ min: 1, max: 5000 }).map((n) => `{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":${"9".repeat(n)}}}`),
  fc.constantFrom("", "null", "[]", "{}", '"\\u0000"', "\uFEFF{}", '{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"\\ud800"}}'),
);

describe("malformed requests against the reference server (PGlite)", () => {
  let database: TestDatabase;
  let server: TestServer;

  beforeAll(async () => {
    database = await createTestDatabase("pglite");
    server = await startTestServer(database.db);
  });
  afterAll(async () => {
    await server?.stop();
    await database?.drop();
  });

  it("answers 1,000 malformed bodies without a 5xx, and keeps serving", async () => {
    const bodies = fc.sample(malformedBody, { numRuns: 1000, seed: 20261123 });
    const statuses = new Map<number, number>();
    for (let i = 0; i < bodies.length; i += 25) {
      const batch = bodies.slice(i, i + 25);
      const results = await Promise.all(
        batch.map(async (body) => {
          const res = await post(server.a2aUrl, body, server.seeded.partnerToken);
          const text = await res.text();
          if (res.headers.get("content-type")?.includes("application/json")) {
            const parsed = JSON.parse(text);
            expect(parsed.jsonrpc).toBe("2.0");
            if (parsed.error) expect(JSON.stringify(parsed.error)).not.toMatch(/ at |select |insert |pg_|stack/i);
          }
          return res.status;
        }),
      );
      for (const status of results) statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
    expect([...statuses.keys()].filter((s) => s >= 500)).toEqual([]);
    // Still up: a real task runs to the end.
    const res = await post(server.a2aUrl, envelope("SendStreamingMessage", startParams()), server.seeded.partnerToken);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("event: finished");
  }, 120_000);
});
