import type { Queryable } from "@a2a-partner/postgres-store";
import type { PGlite } from "@electric-sql/pglite";
import type pg from "pg";
import { describe, expectTypeOf, it } from "vitest";
import type { MetricsQueryable } from "../src/index.js";

// Compile-time checks (run by `pnpm typecheck`): every database handle the project uses fits
// `MetricsQueryable` without an adapter, so metrics-core never needs to import a driver.
describe("MetricsQueryable", () => {
  it("accepts pg.Pool, pg.Client, PGlite and the store's Queryable", () => {
    expectTypeOf<pg.Pool>().toExtend<MetricsQueryable>();
    expectTypeOf<pg.Client>().toExtend<MetricsQueryable>();
    expectTypeOf<PGlite>().toExtend<MetricsQueryable>();
    expectTypeOf<Queryable>().toExtend<MetricsQueryable>();
  });
});
