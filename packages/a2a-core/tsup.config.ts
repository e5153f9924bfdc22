import { readFileSync } from "node:fs";
import { defineConfig } from "tsup";
import { packageBuild } from "../../tsup.base.ts";

// The push dispatcher's User-Agent names the package's version (src/runtime/push/push-request.ts).
const { version } = JSON.parse(readFileSync(new URL("./package.json", import.meta.url), "utf8")) as { version: string };
const define = { __A2A_CORE_VERSION__: JSON.stringify(version) };

export default defineConfig([
  // dist/ is emptied by the build script first: a tsup config that cleans also deletes the other
  // config's declarations when its own declaration build starts, and the two run in parallel.
  {
    ...packageBuild,
    entry: ["src/index.ts", "src/node.ts", "src/node-runtime.ts", "src/protocol.ts", "src/grpc.ts"],
    clean: false,
    define,
  },
  {
    // The store contract kit runs under Vitest, which is ESM-only (it refuses require()): one ESM build
    // with its types.
    ...packageBuild,
    entry: ["src/testing.ts"],
    format: ["esm"],
    clean: false,
    define,
  },
]);
