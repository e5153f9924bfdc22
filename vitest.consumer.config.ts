import { defineConfig } from "vitest/config";

// The packages as npm consumers get them: packed, installed with npm outside the workspace (once, in the
// global setup), then used from Node, Bun, Deno and workerd. A run of its own, after the main one, so a
// targeted `npx vitest run <file>` never pays for the install.
export default defineConfig({
  test: {
    include: ["test/consumer/**/*.consumer-test.ts"],
    globalSetup: ["test/consumer/global-setup.ts"],
    testTimeout: 90_000,
    hookTimeout: 120_000,
    maxWorkers: 2,
  },
});
