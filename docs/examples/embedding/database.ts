import { migrate, openDatabase } from "@a2a-partner/postgres-store";

// The database the fragments take as given: PostgreSQL at DATABASE_URL (snippets-run.test.ts makes a
// fresh one), never a PGlite directory wherever the process happens to run.
const url = process.env.DATABASE_URL;
if (!url) throw new Error("DATABASE_URL must name the PostgreSQL database to run these snippets on");
export const db = await openDatabase({ url });
await migrate(db);
