import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // initdb once for the run, then the reference schema migrated once on a copy: the suites that open
    // fresh PGlite databases load or copy one of the two (test/support, examples/server/test/support).
    globalSetup: ["test/support/pglite-template-setup.ts", "examples/server/test/support/migrated-template-setup.ts"],
    include: [
      "test/**/*.test.ts",
      "packages/*/src/**/*.test.ts",
      "packages/*/test/**/*.test.ts",
      "examples/*/src/**/*.test.ts",
      "examples/*/test/**/*.test.ts",
      "docs/examples/**/*.test.ts",
      "bench/**/*.test.ts",
    ],
    // Generous: suites that spawn servers share two cores; a hung test still fails, just later.
    testTimeout: 90_000,
    hookTimeout: 120_000,
    // Integration suites start servers and databases on two cores; many of them also wait (a lease to lapse,
    // a grace, an outage), so a third worker keeps both cores busy; a fourth only adds contention
    // (bench/NOTES.md, "CI time").
    maxWorkers: 3,
  },
});
