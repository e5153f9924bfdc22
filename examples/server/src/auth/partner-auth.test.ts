import type { AddressInfo } from "node:net";
import { CacheInvalidation, type Database, type Queryable } from "@a2a-partner/postgres-store";
import express from "express";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../test/support/backends.ts";
import { CACHE_CHANGES_CHANNEL } from "../app.ts";
import { metricsRouter } from "../routes/metrics.ts";
import { seed } from "../seed.ts";
import { partnerAuthenticator } from "./partner-auth.ts";
import { generateToken, hashToken } from "./tokens.ts";
import { userAuthenticator } from "./user-auth.ts";

const bearer = (token: string) => new Headers({ authorization: `Bearer ${token}` });

// Unknown tokens used to cost a database lookup each, with nothing before auth to limit them: a client
// (or a flood) repeating bad tokens kept the pool busy. Now a refusal is remembered briefly and in bounds,
// and still never outlives a change to api_tokens (a token created after it was refused works at once).
describe("partner auth and tokens the database does not know", () => {
  let test: TestDatabase;
  let invalidation: CacheInvalidation;
  let workspaceId: string;
  let lookups = 0;
  let counted: Queryable;

  beforeAll(async () => {
    test = await createTestDatabase("pglite");
    await seed(test.db);
    workspaceId = (await test.db.query<{ id: string }>("select id from workspaces where slug = 'demo'")).rows[0]
      ?.id as string;
    invalidation = new CacheInvalidation(test.db, { channel: CACHE_CHANGES_CHANNEL });
    await invalidation.start();
    counted = {
      ...test.db,
      query: (sql: string, params?: readonly unknown[]) => {
        if (sql.includes("from api_tokens")) lookups++;
        return test.db.query(sql, params);
      },
    } as Queryable;
  });
  afterAll(async () => {
    await invalidation.close();
    await test.drop();
  });

  it("looks an unknown token up once, however often and however concurrently it is sent", async () => {
    const auth = partnerAuthenticator(counted, invalidation);
    const token = generateToken("partner");
    lookups = 0;
    const outcomes = await Promise.all(Array.from({ length: 50 }, () => auth(bearer(token))));
    for (let i = 0; i < 50; i++) outcomes.push(await auth(bearer(token)));
    expect(outcomes.every((o) => !o.ok && o.status === 401)).toBe(true);
    expect(lookups).toBe(1);
  });

  it("accepts a token created after it was refused, at once (the refusal is forgotten with the change)", async () => {
    const auth = partnerAuthenticator(counted, invalidation, { unknownTokenTtlMs: 600_000 });
    const token = generateToken("partner");
    expect(await auth(bearer(token))).toMatchObject({ ok: false, status: 401 });
    await test.db.query("insert into api_tokens (token_hash, kind, workspace_id) values ($1, 'partner', $2)", [
      hashToken(token),
      workspaceId,
    ]);
    await vi.waitFor(async () => expect(await auth(bearer(token))).toMatchObject({ ok: true, workspaceId }), {
      timeout: 2_000,
    });
  });

  it("remembers refusals for a bounded time and a bounded count", async () => {
    const auth = partnerAuthenticator(counted, invalidation, { unknownTokenTtlMs: 200, unknownTokenCapacity: 3 });
    const [a, b, c, d] = Array.from({ length: 4 }, () => generateToken("partner")) as [string, string, string, string];
    lookups = 0;
    await auth(bearer(a));
    await auth(bearer(a));
    expect(lookups).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 250));
    await auth(bearer(a));
    expect(lookups).toBe(2); // the refusal expired
    for (const token of [b, c, d]) await auth(bearer(token)); // the fourth refusal empties the memory …
    lookups = 0;
    await auth(bearer(a));
    expect(lookups).toBe(1); // … so a is looked up again
  });

  it("logs 300 made-up tokens as one line, not 300 (then a count a minute: refusal-log.test.ts)", async () => {
    const lines: Array<Record<string, unknown>> = [];
    const logger = { info: (fields: object, msg: string) => void lines.push({ ...fields, msg }) };
    const auth = partnerAuthenticator(counted, invalidation, { logger: logger as never });
    for (let i = 0; i < 300; i++) await auth(bearer(generateToken("partner")));
    expect(lines).toEqual([
      {
        endpoint: "a2a",
        status: 401,
        reason: "unknown, revoked or expired token",
        count: 1,
        msg: "authentication refused",
      },
    ]);
  });

  it("on the metrics endpoint too, looks an unknown token up once, and forgets it when a token is made", async () => {
    const authenticate = userAuthenticator(counted, invalidation, { unknownTokenTtlMs: 600_000 });
    const token = generateToken("user");
    lookups = 0;
    for (let i = 0; i < 20; i++)
      expect(await authenticate(`Bearer ${token}`)).toMatchObject({ ok: false, status: 401 });
    expect(lookups).toBe(1);
    const { rows } = await test.db.query<{ id: string }>("select id from users limit 1");
    await test.db.query("insert into api_tokens (token_hash, kind, user_id) values ($1, 'user', $2)", [
      hashToken(token),
      rows[0]?.id,
    ]);
    await vi.waitFor(async () => expect(await authenticate(`Bearer ${token}`)).toMatchObject({ ok: true }), {
      timeout: 2_000,
    });
  });

  it("the metrics route answers a repeated unknown token from that memory", async () => {
    const app = express();
    const silent = { child: () => silent, info() {}, debug() {}, warn() {} };
    app.use("/api/v1/metrics", metricsRouter({ db: counted as Database, logger: silent as never, invalidation }));
    const server = app.listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/metrics/events/demo`;
      const token = generateToken("user");
      lookups = 0;
      for (let i = 0; i < 10; i++) {
        expect((await fetch(url, { headers: { authorization: `Bearer ${token}` } })).status).toBe(401);
      }
      expect(lookups).toBe(1);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
