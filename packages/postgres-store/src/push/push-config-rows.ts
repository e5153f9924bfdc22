import type { PushAuthentication, PushConfig } from "@a2a-partner/a2a-core";
import { sqlTimestamp, toIso } from "../tasks/rows.js";

/** A `push_configs` row as both drivers return it. */
export interface PushConfigRow {
  task_id: string;
  id: string;
  url: string;
  token: string | null;
  authentication: PushAuthentication | null;
  version: PushConfig["version"];
  created_at: Date | string;
}

/** The columns `toPushConfig` reads. */
export const PUSH_CONFIG_COLUMNS = "task_id, id, url, token, authentication, version, created_at";

/** A config from its row: optional fields absent rather than null, as the port shapes them. */
export function toPushConfig(row: PushConfigRow): PushConfig {
  const config: PushConfig = {
    id: row.id,
    taskId: row.task_id,
    url: row.url,
    version: row.version,
    createdAt: toIso(row.created_at),
  };
  if (row.token !== null) config.token = row.token;
  if (row.authentication !== null) config.authentication = row.authentication;
  return config;
}

/** A config's column values as a statement sends them (the task id comes from the task row). */
export interface PushConfigValues {
  id: string;
  url: string;
  token: string | null;
  /** JSON text, or null. */
  authentication: string | null;
  version: string;
  created_at: string;
}

/**
 * A config's values, checked before any SQL runs: the methods have validated what a client sent, so
 * anything else here (a missing id, an unparseable timestamp) is a caller's bug, reported as a TypeError.
 */
export function pushConfigValues(config: PushConfig): PushConfigValues {
  if (typeof config.id !== "string" || config.id === "")
    throw new TypeError("push config id must be a non-empty string");
  if (typeof config.url !== "string") throw new TypeError("push config url must be a string");
  if (typeof config.version !== "string") throw new TypeError("push config version must be a string");
  return {
    id: config.id,
    url: config.url,
    token: config.token ?? null,
    authentication: config.authentication === undefined ? null : JSON.stringify(config.authentication),
    version: config.version,
    created_at: sqlTimestamp(config.createdAt, "push config createdAt"),
  };
}

/**
 * A start's inline configs as the start statements take them: one JSON array parameter whose elements
 * `jsonb_to_recordset` reads as `PUSH_CONFIG_RECORD` (authentication as a JSON value, not text).
 */
export function pushConfigsJson(configs: readonly PushConfig[]): string {
  return JSON.stringify(
    configs.map((config) => {
      const values = pushConfigValues(config);
      return { ...values, authentication: config.authentication ?? null };
    }),
  );
}

/** The record type of `pushConfigsJson`'s elements, for `jsonb_to_recordset(...) as c(...)`. */
export const PUSH_CONFIG_RECORD =
  "id text, url text, token text, authentication jsonb, version text, created_at timestamptz";
