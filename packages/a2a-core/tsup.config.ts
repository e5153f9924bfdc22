import { defineConfig } from "tsup";
import { packageBuild } from "../../tsup.base.ts";

export default defineConfig([
  // dist/ is emptied by the build script first: a tsup config that cleans also deletes the other
  // config's declarations when its own declaration build starts, and the two run in parallel.
  { ...packageBuild, entry: ["src/index.ts", "src/node.ts"], clean: false },
  {
    // The store contract kit runs under Vitest, which is ESM-only (it refuses require()): one ESM build
    // with its types.
    ...packageBuild,
    entry: ["src/testing.ts"],
    format: ["esm"],
    clean: false,
  },
]);
