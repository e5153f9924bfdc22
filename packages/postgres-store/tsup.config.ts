import { defineConfig } from "tsup";

export default defineConfig({
  entry: ["src/index.ts"],
  format: ["esm", "cjs"],
  dts: true,
  sourcemap: true,
  clean: true,
  target: "node22",
  // The CJS build locates migrations/ through import.meta.url (see src/migrations-dir.ts).
  shims: true,
});
