import { describe } from "vitest";
import { openPostgres, POSTGRES_URL, postgresAvailable } from "./support/databases.js";
import { defineMetricsSuite } from "./support/metrics-suite.js";

// Under CI the suite always runs, so an unreachable PostgreSQL fails it instead of skipping it quietly.
// Concurrent sessions (writers, compactions, truncates, readers): postgres-concurrency.test.ts.
const runs = await postgresAvailable();
if (!runs) console.warn(`PostgreSQL at ${POSTGRES_URL} is unreachable: skipping the PostgreSQL metrics suite`);

describe.runIf(runs)("metrics on PostgreSQL", () => {
  defineMetricsSuite(openPostgres);
});
