import { defineConfig } from "tsup";

export default defineConfig({
  // cli.ts is the `a2a-task` bin (dist/cli.js, ESM; tsup keeps its shebang and marks it executable).
  entry: ["src/index.ts", "src/cli.ts"],
  format: ["esm", "cjs"],
  dts: { entry: "src/index.ts" },
  sourcemap: true,
  clean: true,
  target: "node22",
});
