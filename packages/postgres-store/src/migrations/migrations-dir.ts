import { fileURLToPath } from "node:url";
import { MIGRATIONS_DIR_URL } from "../package-files.js";
import type { MigrationSource } from "./migration-files.js";

/** The `migrations/` folder shipped in the npm package. */
export function defaultMigrationsDir(): string {
  return fileURLToPath(MIGRATIONS_DIR_URL);
}

/** This package's own migrations (tasks, task_events) as a source for `migrate`. */
export function storeMigrations(): MigrationSource {
  return { name: "a2a-store", dir: defaultMigrationsDir() };
}
