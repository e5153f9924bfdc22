import { db } from "./database.ts";

// #region snippet
import { fileURLToPath } from "node:url";
import { metricsMigrations } from "@a2a-partner/metrics-core";
import { migrate, storeMigrations } from "@a2a-partner/postgres-store";

const mine = { name: "my-app", dir: fileURLToPath(new URL("./migrations/", import.meta.url)) };
await migrate(db, { sources: [storeMigrations(), metricsMigrations(), mine] }); // in this order

// #endregion snippet

export { db };
