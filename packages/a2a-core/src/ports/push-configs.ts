import type { ProtocolVersion } from "../protocol/dialect/protocol-version.js";

/** How the server authenticates itself to a receiver: `Authorization: <schemes[0]> <credentials>`. */
export interface PushAuthentication {
  /** HTTP authentication schemes (v0.3 `schemes`; v1.0's single `scheme` is a list of one). */
  schemes: string[];
  credentials?: string;
}

/**
 * Where a task's events are pushed (A2A `PushNotificationConfig`), in one internal shape for both
 * dialects. A config belongs to one task and so to that task's workspace.
 */
export interface PushConfig {
  /** Unique within its task: the client's, or a generated UUID. */
  id: string;
  taskId: string;
  /** `http:` or `https:`; checked against the SSRF guard when created and again on every connection. */
  url: string;
  /** Sent as `X-A2A-Notification-Token`. */
  token?: string;
  authentication?: PushAuthentication;
  /** The version the config was made in: its receiver gets payloads in that version's shapes. */
  version: ProtocolVersion;
  /** ISO-8601 UTC. */
  createdAt: string;
}

/** What `PushConfigStore.put` did. */
export type PutPushConfigResult =
  | { kind: "stored"; config: PushConfig }
  /** The task does not exist in this workspace (reported like an unknown task: -32001). */
  | { kind: "task-not-found" }
  /** The task already has `maxPerTask` configs and this one would be another. */
  | { kind: "too-many" };

/**
 * A task's push configs. Configs of a task are created, replaced, read and deleted only through its
 * workspace; another workspace's task is reported exactly like an unknown one. Deliveries are written by
 * the event log (see `PushDeliveryQueue`): for every event committed while a config exists, one delivery.
 */
export interface PushConfigStore {
  /**
   * Creates the config, or replaces the one with the same task and id (its pending deliveries keep
   * going to the replaced address from their next attempt on). At most `maxPerTask` per task.
   */
  put(workspaceId: string, config: PushConfig, maxPerTask: number): Promise<PutPushConfigResult>;
  get(workspaceId: string, taskId: string, configId: string): Promise<PushConfig | undefined>;
  /** Oldest first. `undefined` when the task does not exist in this workspace. */
  list(workspaceId: string, taskId: string): Promise<PushConfig[] | undefined>;
  /**
   * Deletes the config and drops its undelivered deliveries. Idempotent: `false` when there was none,
   * `undefined` when the task does not exist in this workspace.
   */
  delete(workspaceId: string, taskId: string, configId: string): Promise<boolean | undefined>;
}
