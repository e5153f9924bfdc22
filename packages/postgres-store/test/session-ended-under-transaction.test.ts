import { POSTGRES_URL, postgresAvailable } from "@a2a-partner/test-support/postgres";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { openDatabase } from "../src/index.js";

describe.skipIf(!(await postgresAvailable()))("a session ended under a transaction", () => {
  it("fails that transaction, not the process, and the pool goes on with a new session", async () => {
    const db = await openDatabase({ url: POSTGRES_URL, pool: { max: 1 } });
    const admin = new pg.Client({ connectionString: POSTGRES_URL });
    await admin.connect();
    try {
      const transaction = db.transaction(async (tx) => {
        const { rows } = await tx.query<{ pid: number }>("select pg_backend_pid() as pid");
        await admin.query("select pg_terminate_backend($1)", [rows[0]?.pid]);
        // The session's end reaches the client while no statement of the transaction runs.
        await new Promise((resolve) => setTimeout(resolve, 200));
        await tx.query("select 1");
      });
      await expect(transaction).rejects.toThrow();
      const { rows } = await db.query<{ one: number }>("select 1 as one");
      expect(rows).toEqual([{ one: 1 }]);
    } finally {
      await admin.end();
      await db.close();
    }
  });
});
