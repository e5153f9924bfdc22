import { configDefaults, defineConfig } from "vitest/config";

/**
 * Unit tests beside the code they test. Some open a socket or an embedded database, and every one closes
 * what it opened and leaves no process-wide state behind, so files can share a worker.
 */
const UNIT = ["packages/*/src/**/*.test.ts", "examples/*/src/**/*.test.ts"];
/** Starts OpenTelemetry's process-wide providers: kept out of the shared workers. */
const UNIT_WITH_GLOBALS = ["packages/a2a-core/src/node-runtime/pino-logger.test.ts"];

export default defineConfig({
  test: {
    // initdb once for the run, then the reference schema migrated once on a copy: the suites that open fresh
    // PGlite databases load or copy one of the two (test/support, examples/server/test/support). At the root,
    // so it runs once whichever projects run.
    globalSetup: ["test/support/pglite-template-setup.ts", "examples/server/test/support/migrated-template-setup.ts"],
    // Generous: suites that spawn servers share two cores; a hung test still fails, just later.
    testTimeout: 90_000,
    hookTimeout: 120_000,
    // Integration suites start servers and databases on two cores; many of them also wait (a lease to lapse,
    // a grace, an outage), so a third worker keeps both cores busy; a fourth only adds contention
    // (bench/NOTES.md, "CI time").
    maxWorkers: 3,
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: UNIT,
          exclude: [...configDefaults.exclude, ...UNIT_WITH_GLOBALS],
          // A worker runs many of these files one after another, modules loaded once: a fresh worker per
          // file cost more than the tests themselves (bench/NOTES.md, "CI time").
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: "integration",
          include: [
            "test/**/*.test.ts",
            "packages/*/test/**/*.test.ts",
            "examples/*/test/**/*.test.ts",
            "docs/examples/**/*.test.ts",
            "bench/**/*.test.ts",
            ...UNIT_WITH_GLOBALS,
          ],
        },
      },
    ],
  },
});
