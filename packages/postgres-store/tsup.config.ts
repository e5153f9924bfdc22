import { defineConfig } from "tsup";
import { packageBuild } from "../../tsup.base.ts";

export default defineConfig({
  ...packageBuild,
  // The PGlite worker thread's entry is a file of its own, loaded by path (src/pglite-worker-database.ts).
  entry: ["src/index.ts", "src/pglite-worker.ts"],
  // The CJS build locates migrations/ through import.meta.url (see src/migrations-dir.ts).
  shims: true,
});
