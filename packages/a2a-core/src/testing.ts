/**
 * `@a2a-partner/a2a-core/testing`: the store contract suite, for anyone writing a `TaskStore`,
 * `EventLog` and `IdempotencyStore` of their own. Runs under Vitest (an optional peer dependency; ESM
 * only, as Vitest is); the in-memory stores and postgres-store run the same cases.
 */

export type { StoreContractContext } from "./testing/store-contract-context.js";
export { defineStoreContractTests } from "./testing/store-contract-suite.js";
export { must, type StoreFixtures, storeFixtures, within } from "./testing/store-fixtures.js";
