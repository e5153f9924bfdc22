import { randomUUID } from "node:crypto";
import { type PgBouncer, pgbouncerAvailable, startPgBouncer } from "@a2a-partner/test-support/pgbouncer";
import { POSTGRES_URL, postgresAvailable } from "@a2a-partner/test-support/postgres";
import { expect, it } from "vitest";
import { type Database, openDatabase } from "../src/index.js";
import { defineStoreSuite } from "./support/store-suite.js";

// The store suite again, every statement through a real PgBouncer in transaction mode, where two
// statements of one pool client may run on two server sessions: no named statement, no startup option,
// no session state may be relied on. LISTEN goes to PostgreSQL directly (`listenUrl`).
const reachable = (await postgresAvailable()) && pgbouncerAvailable();

const schema = `pooled_test_${randomUUID().replaceAll("-", "")}`;
// A zone far from UTC for the pooler's sessions: any statement that leans on the session's zone for a
// day, an hour or a timestamp's text gets another answer than on a UTC session.
const ZONE = "Pacific/Kiritimati";

defineStoreSuite(
  "PostgreSQL through PgBouncer (pool_mode = transaction)",
  async () => {
    const admin = await openDatabase({ url: POSTGRES_URL });
    await admin.exec(`create schema ${schema}`);
    // The schema comes from the pooler's connect query: PgBouncer refuses the `options` startup parameter.
    const bouncer: PgBouncer = await startPgBouncer({
      databases: {
        pooled: `host=127.0.0.1 port=5432 dbname=test timezone=${ZONE} connect_query='set search_path = ${schema}'`,
      },
      poolSize: 20,
    });
    const opened: Database[] = [];
    return {
      async open() {
        const db = await openDatabase({
          url: bouncer.url("pooled"),
          listenUrl: POSTGRES_URL,
          transactionPooler: true,
          pool: { max: 8 },
        });
        opened.push(db);
        return db;
      },
      async close() {
        for (const db of opened) await db.close();
        await bouncer.stop();
        await admin.exec(`drop schema if exists ${schema} cascade`);
        await admin.close();
      },
    };
  },
  {
    skip: !reachable,
    sessionTimeZone: ZONE,
    extra: (context) => {
      it("runs statements in the pooler's sessions, not in a session of its own", async () => {
        const { rows } = await context().db.query<{ zone: string }>("select current_setting('TimeZone') as zone");
        expect(rows[0]?.zone).toBe(ZONE);
      });
    },
  },
);

it.skipIf(!reachable)("refuses a transaction pooler without a direct connection for LISTEN", async () => {
  await expect(openDatabase({ url: POSTGRES_URL, transactionPooler: true })).rejects.toThrow(/listenUrl/);
});
