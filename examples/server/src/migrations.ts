import { fileURLToPath } from "node:url";
import { metricsMigrations } from "@a2a-partner/metrics-core";
import {
  type Database,
  type MigrateResult,
  type MigrationSource,
  migrate,
  storeMigrations,
} from "@a2a-partner/postgres-store";

/** This server's own migrations: its domain, and the keys that bind the other packages' tables to it. */
export function serverMigrationsDir(): string {
  return fileURLToPath(new URL("../migrations/", import.meta.url));
}

/**
 * Everything the reference server runs on, in order: the A2A store's tables, the metrics tables, then
 * the server's domain (which references both).
 */
export function referenceSchemaSources(): MigrationSource[] {
  return [storeMigrations(), metricsMigrations(), { name: "reference-server", dir: serverMigrationsDir() }];
}

/** Applies the reference server's full schema: idempotent, safe when several instances start at once. */
export function migrateReferenceSchema(db: Database): Promise<MigrateResult> {
  return migrate(db, { sources: referenceSchemaSources() });
}
