import { defineConfig } from "tsup";
import { packageBuild } from "../../tsup.base.ts";

export default defineConfig([
  {
    ...packageBuild,
    entry: ["src/index.ts", "src/dispatch-thread.ts"],
    // The CJS build locates migrations/ and the worker's file through import.meta.url (src/package-files.ts).
    shims: true,
  },
  {
    // The PGlite worker thread's entry, a file of its own loaded by path from either build of the index:
    // one ESM file, nothing to import, so no CommonJS copy and no types. The index's build cleans dist/.
    ...packageBuild,
    entry: ["src/pglite-worker.ts"],
    format: ["esm"],
    dts: false,
    clean: false,
  },
]);
