import type { Options } from "tsup";

/** How every package is built: ESM and CommonJS with declarations, for Node 22 and later. */
export const packageBuild = {
  format: ["esm", "cjs"],
  dts: true,
  sourcemap: true,
  clean: true,
  target: "node22",
} satisfies Options;
