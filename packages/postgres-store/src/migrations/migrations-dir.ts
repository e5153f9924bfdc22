import { fileURLToPath } from "node:url";
import type { MigrationSource } from "./migrate.js";

/**
 * The `migrations/` folder shipped in the npm package. Both `src/*.ts` and the bundled `dist/index.*`
 * sit one level below the package root, so the same relative URL works for the sources (tests), the
 * ESM build and the CJS build (where tsup's `shims` turn `import.meta.url` into the file's URL).
 */
export function defaultMigrationsDir(): string {
  return fileURLToPath(new URL("../migrations/", import.meta.url));
}

/** This package's own migrations (tasks, task_events) as a source for `migrate`. */
export function storeMigrations(): MigrationSource {
  return { name: "a2a-store", dir: defaultMigrationsDir() };
}
