import { fileURLToPath } from "node:url";
import { defineConfig, mergeConfig } from "vitest/config";
import main from "../../vitest.config.ts";

/** The main run's configuration with `file-cpu-setup.ts` in every project (see test-cpu.ts). */
export default mergeConfig(
  main,
  defineConfig({
    root: fileURLToPath(new URL("../..", import.meta.url)),
    test: { setupFiles: [fileURLToPath(new URL("./file-cpu-setup.ts", import.meta.url))] },
  }),
);
