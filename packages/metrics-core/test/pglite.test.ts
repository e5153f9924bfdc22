import { describe } from "vitest";
import { openPglite } from "./support/databases.js";
import { defineMetricsSuite } from "./support/metrics-suite.js";

// PGlite 0.5 = PostgreSQL 18 in WASM: the embedded default of the reference server.
describe("metrics on PGlite", () => {
  defineMetricsSuite(openPglite);
});
