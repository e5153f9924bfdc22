import type { CreateOrGetResult, IdempotencyStore, NewTask, TaskRecord } from "@a2a-partner/a2a-core";
import type { Database } from "../database.js";
import { isUuid } from "../is-uuid.js";
import { asRequestDataError } from "../tasks/data-error.js";
import { createTask, startTask } from "../tasks/insert-task.js";
import { TASK_COLUMNS, type TaskRow, toTaskRecord } from "../tasks/rows.js";
import type { GroupCommitWriter } from "../writer/group-commit-writer.js";

/** How often a start is asked again when a concurrent start with the same key was not yet visible. */
const ATTEMPTS = 3;

/** Options of `PostgresIdempotencyStore`. */
export interface PostgresIdempotencyStoreOptions {
  /**
   * Starts asked for while this writer is busy ride its next commit instead of each being a statement
   * and a commit of its own (`createPostgresStores` passes the event log's writer); a start on a quiet
   * server still goes alone, the quicker way. Under load that is a few commits a second instead of one per
   * start: on PostgreSQL fewer WAL flushes and backends woken (a third less of PostgreSQL's CPU per task
   * in bench/NOTES.md), on PGlite no start waits behind a commit for a turn of its own. A batch inserts
   * its starts in key order, so two instances' batches take the same keys in the same order.
   */
  writer?: GroupCommitWriter;
}

/**
 * Idempotent task starts keyed by (workspace, messageId). The unique constraint on those columns
 * decides: of concurrent inserts, in this process or another, one writes the task and the others' `on
 * conflict do nothing` leaves them to read the winner's row.
 */
export class PostgresIdempotencyStore implements IdempotencyStore {
  private readonly writer: GroupCommitWriter | undefined;

  constructor(
    private readonly db: Database,
    options: PostgresIdempotencyStoreOptions = {},
  ) {
    this.writer = options.writer;
  }

  async get(workspaceId: string, messageId: string): Promise<TaskRecord | undefined> {
    if (!isUuid(workspaceId)) return undefined;
    const { rows } = await this.db
      .query<TaskRow>(`select ${TASK_COLUMNS} from tasks where workspace_id = $1 and message_id = $2`, [
        workspaceId,
        messageId,
      ])
      .catch((error: unknown) => {
        // The messageId comes straight from the request.
        throw asRequestDataError(error);
      });
    const row = rows[0];
    return row ? toTaskRecord(row) : undefined;
  }

  async createOrGet(messageId: string | undefined, input: NewTask): Promise<CreateOrGetResult> {
    if (!isUuid(input.workspaceId)) throw new TypeError("workspaceId must be a UUID");
    // Without a key nothing can conflict: the one statement inserts or throws, so there is nothing to ask again.
    if (messageId === undefined) return { record: await createTask(this.db, input, this.writer), created: true };
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      // One round trip: the new task, or the one the key already names.
      const started = await startTask(this.db, input, messageId, this.writer);
      if (started) return started;
    }
    throw new Error("the task for this messageId could not be read while it was being started; retry");
  }
}
