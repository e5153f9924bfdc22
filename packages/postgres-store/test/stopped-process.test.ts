import { randomBytes } from "node:crypto";
import { POSTGRES_URL, postgresAvailable } from "@a2a-partner/test-support/postgres";
import pg from "pg";
import { afterAll, describe, expect, it, vi } from "vitest";
import { LISTEN_SESSIONS, sessionStartup } from "../src/postgres/session-options.js";
import { killScripts, runScript } from "./support/stopped-process.js";

// A process stopped without exiting (SIGSTOP here; a paused VM, a host gone without a reset) keeps its
// sessions open on PostgreSQL. What it holds there must not hold back the processes that still run.
// Each case waits out a 30 s limit: they run at once.

/** A process with a Database listening on CHANNEL, as an application runs one. */
const LISTENING_PROCESS = `
import { openDatabase } from "@a2a-partner/postgres-store";
const db = await openDatabase({ url: process.env.URL, listenUrl: process.env.LISTEN_URL });
await db.listen(process.env.CHANNEL, (payload) => { if (payload === "after") console.log("heard after"); }, {
  onReconnect: () => console.log("reconnected"),
});
console.log("listening");
// The application's own work (a server) keeps the process up: the database's timers do not.
setInterval(() => {}, 60_000);
`;

/**
 * A process whose transaction takes a lock and then waits, as a stopped one does, between statements. An
 * advisory lock, not a row's: a row lock gives the transaction an id, and an open one holds back every
 * snapshot's xmin on the primary, which the replica suites running beside this one would wait out.
 */
const LOCKING_PROCESS = `
import { openDatabase } from "@a2a-partner/postgres-store";
const db = await openDatabase({ url: process.env.URL });
setInterval(() => {}, 60_000);
await db.transaction(async (tx) => {
  await tx.query("select pg_advisory_xact_lock($1)", [process.env.LOCK]);
  console.log("locked");
  // Stopped here by the test; once running again, its next statement finds whether the session is still there.
  await new Promise((resolve) => setTimeout(resolve, 5_000));
  await tx.query("select 1");
}).catch((error) => console.log("transaction failed: " + error.message));
`;

describe.skipIf(!(await postgresAvailable()))(
  "a process stopped with sessions open on PostgreSQL",
  { concurrent: true },
  () => {
    afterAll(killScripts);

    it("its LISTEN session is cut after 30 s, freeing the NOTIFY queue, and it listens again once it runs", async () => {
      const channel = `frozen_${randomBytes(4).toString("hex")}`;
      const listenUrl = new URL(POSTGRES_URL);
      listenUrl.searchParams.set("application_name", channel);
      const { child, said, stop } = runScript(LISTENING_PROCESS, {
        URL: POSTGRES_URL,
        LISTEN_URL: listenUrl.toString(),
        CHANNEL: channel,
      });
      await vi.waitFor(() => expect(said).toContain("listening"), { timeout: 20_000, interval: 100 });

      const admin = new pg.Client({ connectionString: POSTGRES_URL });
      await admin.connect();
      try {
        const listening = async () =>
          Number(
            (await admin.query(`select count(*) as n from pg_stat_activity where application_name = $1`, [channel]))
              .rows[0].n,
          );
        expect(await listening()).toBe(1);

        // Frozen: its kernel takes what fits in the socket's buffers, then PostgreSQL's sends wait.
        child.kill("SIGSTOP");
        const payload = "x".repeat(7_900);
        for (let sent = 0; sent < 3_000; sent++) await admin.query("select pg_notify($1, $2)", [channel, payload]);
        // Cut once PostgreSQL's sends have waited LISTEN_TCP_USER_TIMEOUT_MS (30 s).
        await vi.waitFor(async () => expect(await listening()).toBe(0), { timeout: 45_000, interval: 100 });
        const usage = Number((await admin.query("select pg_notification_queue_usage() as u")).rows[0].u);
        // 23 MB were sent to the frozen listener alone: with it still holding them, the queue would hold them
        // (other suites' listeners may hold a little of their own).
        expect(usage * 8 * 1024 ** 3).toBeLessThan(8 * 1024 ** 2);
        expect(said).not.toContain("reconnected");

        child.kill("SIGCONT");
        await vi.waitFor(() => expect(said).toContain("reconnected"), { timeout: 20_000, interval: 100 });
        await vi.waitFor(
          async () => {
            await admin.query("select pg_notify($1, 'after')", [channel]);
            expect(said).toContain("heard after");
          },
          { timeout: 10_000, interval: 100 },
        );
      } finally {
        stop();
        await admin.end();
      }
    }, 90_000);

    it("its LISTEN session asks for that timeout, keeping what the connection string's options set", async () => {
      const url = new URL(POSTGRES_URL);
      url.searchParams.set("options", "-c statement_timeout=1234");
      const client = new pg.Client(sessionStartup(url.toString(), undefined, LISTEN_SESSIONS));
      await client.connect();
      try {
        const { rows } = await client.query(
          `select current_setting('tcp_user_timeout') as tcp, current_setting('TimeZone') as zone,
                current_setting('statement_timeout') as statement`,
        );
        expect(rows[0]).toEqual({ tcp: "30000", zone: "UTC", statement: "1234ms" });
      } finally {
        await client.end();
      }
    });

    it("its transaction waiting between statements is ended after 30 s, so others waiting for its locks go on", async () => {
      const lock = String(randomBytes(4).readUInt32BE());
      const admin = new pg.Client({ connectionString: POSTGRES_URL });
      await admin.connect();
      const { child, said, stop } = runScript(LOCKING_PROCESS, { URL: POSTGRES_URL, LOCK: lock });
      try {
        await vi.waitFor(() => expect(said).toContain("locked"), { timeout: 20_000, interval: 100 });
        child.kill("SIGSTOP");

        // Without the limit this would wait for the stopped process for ever (here: 45 s, then fail).
        await admin.query("set statement_timeout = 45000");
        const startedAt = Date.now();
        await admin.query("select pg_advisory_lock($1)", [lock]);
        expect(Date.now() - startedAt).toBeLessThan(40_000);
        await admin.query("select pg_advisory_unlock($1)", [lock]);

        // Running again, the process is told its transaction is gone.
        child.kill("SIGCONT");
        await vi.waitFor(() => expect(said.some((line) => line.startsWith("transaction failed"))).toBe(true), {
          timeout: 10_000,
          interval: 100,
        });
      } finally {
        stop();
        await admin.end();
      }
    }, 90_000);
  },
);
