import { freshPgliteOptions } from "@a2a-partner/test-support/pglite-template";
import { PGlite } from "@electric-sql/pglite";
import { pgliteDatabase } from "../src/index.js";
import { defineStoreSuite } from "./support/store-suite.js";

// One in-memory PGlite per file (its initdb costs seconds). Every "instance" of the suite is its own
// Database wrapper with its own LISTEN over that one embedded server, the closest PGlite comes to two
// processes: a waiter on one wrapper can only be woken by the NOTIFY of the other.
defineStoreSuite("PGlite", async () => {
  const instance = await PGlite.create("memory://", await freshPgliteOptions());
  const opened: ReturnType<typeof pgliteDatabase>[] = [];
  return {
    async open() {
      const db = pgliteDatabase(instance, { closeInstance: false });
      opened.push(db);
      return db;
    },
    async close() {
      for (const db of opened) await db.close();
      await instance.close();
    },
  };
});
