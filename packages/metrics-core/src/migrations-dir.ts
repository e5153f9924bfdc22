import { fileURLToPath } from "node:url";

/**
 * The `migrations/` folder shipped in the npm package: the raw tables metrics count, their rollups and the
 * compaction, as plain SQL for postgres-store's `migrate` (this package stays driver-free). Both `src/*.ts`
 * and the bundled `dist/index.*` sit one level below the package root, so one relative URL serves the
 * sources, the ESM build and the CJS build (where tsup's `shims` turn `import.meta.url` into the file's URL).
 */
export function metricsMigrationsDir(): string {
  return fileURLToPath(new URL("../migrations/", import.meta.url));
}

/**
 * This package's migrations as a source for postgres-store's `migrate`, after the store's own:
 * `migrate(db, { sources: [storeMigrations(), metricsMigrations()] })`.
 */
export function metricsMigrations(): { name: "metrics"; dir: string } {
  return { name: "metrics", dir: metricsMigrationsDir() };
}
