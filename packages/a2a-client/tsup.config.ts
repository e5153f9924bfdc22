import { defineConfig } from "tsup";
import { packageBuild } from "../../tsup.base.ts";

export default defineConfig({
  ...packageBuild,
  // cli.ts is the `a2a-task` bin (dist/cli.js, ESM; tsup keeps its shebang and marks it executable).
  entry: ["src/index.ts", "src/grpc.ts", "src/cli.ts"],
  dts: { entry: ["src/index.ts", "src/grpc.ts"] },
});
