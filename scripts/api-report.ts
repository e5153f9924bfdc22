/**
 * The public surface of every package, checked against its reviewed report (packages/<name>/api/*.api.md).
 *
 *   node scripts/api-report.ts           check: fails when a built package's surface differs from its report
 *   node scripts/api-report.ts --update  rewrite the reports (after a deliberate change; review the diff)
 *
 * Reads the built declarations (dist/*.d.ts), so build first (`pnpm build`; `pnpm api:update` does).
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { Extractor, ExtractorConfig } from "@microsoft/api-extractor";

const update = process.argv.includes("--update");
const packagesDir = join(import.meta.dirname, "..", "packages");
const configs = readdirSync(packagesDir).flatMap((name) =>
  readdirSync(join(packagesDir, name))
    .filter((file) => /^api-extractor(\.[\w-]+)?\.json$/.test(file))
    .map((file) => join(packagesDir, name, file)),
);

const changed: string[] = [];
let failed = false;
for (const path of configs) {
  const config = ExtractorConfig.loadFileAndPrepare(path);
  const result = Extractor.invoke(config, { localBuild: update, showVerboseMessages: false });
  if (result.apiReportChanged) changed.push(config.reportFilePath);
  if (result.errorCount > 0) failed = true;
}

if (update) {
  console.log(changed.length === 0 ? "API reports unchanged." : `API reports rewritten:\n  ${changed.join("\n  ")}`);
} else if (changed.length > 0) {
  console.error(
    `The public API changed and its report was not updated:\n  ${changed.join("\n  ")}\n` +
      "If the change is deliberate, run `pnpm api:update`, review the diff and add a changeset.",
  );
  process.exitCode = 1;
}
if (failed) process.exitCode = 1;
