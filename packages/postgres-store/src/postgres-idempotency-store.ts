import type { CreateOrGetResult, IdempotencyStore, NewTask, TaskRecord } from "@a2a-partner/a2a-core";
import type { Database } from "./database.js";
import { insertTask } from "./insert-task.js";
import { isUuid, TASK_COLUMNS, type TaskRow, toTaskRecord } from "./rows.js";

/** How often a key whose task vanished between our insert and our read is tried again. */
const ATTEMPTS = 3;

/**
 * Idempotent task starts keyed by (workspace, messageId). The unique constraint on those columns
 * decides: of concurrent inserts, in this process or another, one writes the task and the others' `on
 * conflict do nothing` leaves them to read the winner's row.
 */
export class PostgresIdempotencyStore implements IdempotencyStore {
  constructor(private readonly db: Database) {}

  async get(workspaceId: string, messageId: string): Promise<TaskRecord | undefined> {
    if (!isUuid(workspaceId)) return undefined;
    const { rows } = await this.db.query<TaskRow>(
      `select ${TASK_COLUMNS} from tasks where workspace_id = $1 and message_id = $2`,
      [workspaceId, messageId],
    );
    const row = rows[0];
    return row ? toTaskRecord(row) : undefined;
  }

  async createOrGet(messageId: string, input: NewTask): Promise<CreateOrGetResult> {
    if (!isUuid(input.workspaceId)) throw new TypeError("workspaceId must be a UUID");
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const created = await this.db.transaction((tx) => insertTask(tx, input, messageId));
      if (created) return { record: created, created: true };
      // Read after the insert's transaction: the conflicting row is committed by then, whatever the
      // session's isolation level.
      const record = await this.get(input.workspaceId, messageId);
      if (record) return { record, created: false };
    }
    throw new Error("the task for this messageId was deleted while it was being started; retry");
  }
}
