/**
 * A package's `build`: runs tsup in the package's folder, then records in `dist/.build-fingerprint` the
 * inputs it built from (taken before tsup starts, so a file saved during the build makes the next
 * `pnpm start` build again). Whoever builds — `pnpm build`, `pnpm -r build`, `pnpm --filter … build`,
 * `pnpm start` — leaves a dist/ that the next start knows to be current.
 *
 *   node ../../scripts/build-package.ts     (from a package folder; its package.json's `build`)
 */
import { spawn } from "node:child_process";
import { fingerprint, writeBuiltFingerprint } from "./build-fingerprint.ts";

const pkg = process.cwd();
const print = await fingerprint(pkg);
const code = await new Promise<number | null>((resolve, reject) => {
  const child = spawn("tsup", { cwd: pkg, stdio: "inherit" });
  child.once("error", reject);
  child.once("exit", (exitCode) => resolve(exitCode));
});
if (code === 0) await writeBuiltFingerprint(pkg, print);
process.exitCode = code ?? 1;
