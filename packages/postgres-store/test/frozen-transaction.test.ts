import { randomBytes } from "node:crypto";
import { POSTGRES_URL, postgresAvailable } from "@a2a-partner/test-support/postgres";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { killScripts, runScript, until } from "./support/stopped-process.js";

/** A process whose transaction locks a row and then waits, as a stopped one does, between statements. */
const LOCKING_PROCESS = `
import { openDatabase } from "@a2a-partner/postgres-store";
const db = await openDatabase({ url: process.env.URL });
setInterval(() => {}, 60_000);
await db.transaction(async (tx) => {
  await tx.query("select id from " + process.env.TABLE + " where id = 1 for update");
  console.log("locked");
  // Stopped here by the test; once running again, its next statement finds whether the session is still there.
  await new Promise((resolve) => setTimeout(resolve, 5_000));
  await tx.query("select 1");
}).catch((error) => console.log("transaction failed: " + error.message));
`;

describe.skipIf(!(await postgresAvailable()))("a transaction whose process stops between statements", () => {
  afterEach(killScripts);

  it("is ended by PostgreSQL after 30 s, so another session's write to its rows goes through", async () => {
    const table = `frozen_${randomBytes(4).toString("hex")}`;
    const admin = new pg.Client({ connectionString: POSTGRES_URL });
    await admin.connect();
    try {
      await admin.query(`create table ${table} (id int primary key, v int not null)`);
      await admin.query(`insert into ${table} values (1, 0)`);
      const { child, said } = runScript(LOCKING_PROCESS, { URL: POSTGRES_URL, TABLE: table });
      await until(() => said.includes("locked"), 20_000);
      child.kill("SIGSTOP");

      // Without the limit this update would wait for the stopped process for ever (here: 45 s, then fail).
      await admin.query("set statement_timeout = 45000");
      const startedAt = Date.now();
      const updated = await admin.query(`update ${table} set v = v + 1 where id = 1`);
      expect(updated.rowCount).toBe(1);
      expect(Date.now() - startedAt).toBeLessThan(40_000);

      // Running again, the process is told its transaction is gone.
      child.kill("SIGCONT");
      await until(() => said.some((line) => line.startsWith("transaction failed")), 10_000);
    } finally {
      killScripts();
      await admin.query(`drop table if exists ${table}`).catch(() => undefined);
      await admin.end();
    }
  }, 90_000);
});
