import { defineConfig } from "tsup";
import { packageBuild } from "../../tsup.base.ts";

export default defineConfig({
  ...packageBuild,
  entry: ["src/index.ts"],
  // The CJS build locates migrations/ through import.meta.url (see src/migrations-dir.ts).
  shims: true,
});
