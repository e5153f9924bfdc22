import { defineConfig } from "vitest/config";

// The packages as npm consumers get them: packed, installed with npm outside the workspace (once, in the
// global setup), then used from Node, Bun, Deno and workerd. A run of its own, after the main one, so a
// targeted `npx vitest run <file>` never pays for the install.
export default defineConfig({
  test: {
    include: ["test/consumer/**/*.consumer-test.ts"],
    globalSetup: ["test/consumer/global-setup.ts"],
    // Each test starts runtimes and compilers: seconds on an idle machine, minutes on a shared busy one.
    testTimeout: 180_000,
    hookTimeout: 120_000,
    maxWorkers: 2,
  },
});
