import { db } from "../embedding/database.ts";

// #region snippet
import { metricsMigrations } from "@a2a-partner/metrics-core";
import { migrate, storeMigrations } from "@a2a-partner/postgres-store";

await migrate(db, { sources: [storeMigrations(), metricsMigrations()] });
// #endregion snippet
export { db };
