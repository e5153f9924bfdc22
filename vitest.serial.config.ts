import { defineConfig } from "vitest/config";

// Suites that take a shared resource away from everyone else (a PostgreSQL restart): run alone, after
// the main run, one file at a time.
export default defineConfig({
  test: {
    include: ["examples/*/test/**/*.serial-test.ts"],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    fileParallelism: false,
  },
});
