import type {
  HandedPushDelivery,
  NewTask,
  NumberedAppend,
  PushAuthentication,
  PushConfig,
  StoredTaskEvent,
} from "@a2a-partner/a2a-core";
import { toIso } from "../tasks/rows.js";
import { toPushConfig } from "./push-config-rows.js";
import { deliveryId } from "./push-delivery-sql.js";

/**
 * A delivery a commit handed off (claimed for the hand-off's owner), as its answer lists it. The config's
 * columns come for an append's event; a start's config is the one the start was given (the statement's
 * snapshot does not hold the row it inserts), so they are null there.
 */
export interface HandedRow {
  task_id: string;
  config_id: string;
  seq: number;
  durable_at: string;
  workspace_id: string | null;
  url: string | null;
  token: string | null;
  authentication: PushAuthentication | null;
  version: PushConfig["version"] | null;
  created_at: string | null;
  /** The newest older pending delivery of its config, held by the same owner (`HandedPushDelivery.after`). */
  after?: number | null;
}

/**
 * The deliveries of a commit's handed rows, built from what the commit wrote (its appends' events, its
 * starts' tasks and configs): the same deliveries `claim` would read back, without reading them back (ids
 * as the database spells them, timestamps as it prints them, so a retry after a retake sends the same
 * bytes under the same webhook-id). The events' results are the writer's own objects, shared as they are
 * with the task's streams: nobody changes them. A row the commit cannot account for (none can) is left
 * out; its lease lapses and `claim` retakes it.
 */
export function handedDeliveries(
  rows: readonly HandedRow[],
  appends: readonly NumberedAppend[],
  starts: readonly NewTask[],
): HandedPushDelivery[] {
  const appendOf = new Map(appends.map((append) => [append.taskId.toLowerCase(), append]));
  const startOf = new Map(starts.map((start) => [start.task.id.toLowerCase(), start]));
  const deliveries: HandedPushDelivery[] = [];
  for (const row of rows) {
    const taskId = row.task_id.toLowerCase();
    const append = appendOf.get(taskId);
    const start = startOf.get(taskId);
    let event: StoredTaskEvent | undefined;
    let config: PushConfig | undefined;
    let workspaceId: string | undefined;
    if (append && row.url !== null && row.version !== null && row.created_at !== null && row.workspace_id !== null) {
      const written = append.events[row.seq - append.prevSeq - 1];
      if (written) event = { ...written, taskId: row.task_id, createdAt: toIso(written.createdAt) };
      config = toPushConfig({
        ...row,
        id: row.config_id,
        url: row.url,
        version: row.version,
        created_at: row.created_at,
      });
      workspaceId = row.workspace_id;
    } else if (start && row.seq === 1) {
      event = {
        taskId: row.task_id,
        seq: 1,
        event: "task",
        result: { task: start.task },
        createdAt: toIso(start.createdAt),
      };
      const given = start.pushConfigs?.find((candidate) => candidate.id === row.config_id);
      if (given) config = { ...given, taskId: row.task_id, createdAt: toIso(given.createdAt) };
      workspaceId = start.workspaceId;
    }
    if (!event || event.seq !== row.seq || !config || !workspaceId) continue;
    const delivery: HandedPushDelivery = {
      id: deliveryId(row.task_id, row.seq, row.config_id),
      workspaceId,
      config,
      event,
      attempt: 1,
      durableAt: toIso(row.durable_at),
    };
    if (typeof row.after === "number") delivery.after = row.after;
    deliveries.push(delivery);
  }
  return deliveries;
}
