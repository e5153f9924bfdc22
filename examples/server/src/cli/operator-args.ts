import { OPERATOR_OPERATIONS, type OperatorOperation } from "../admin/workspace-operations.ts";
import type { ServerConfig } from "../config.ts";
import { migrateReferenceSchema } from "../migrations.ts";
import { printLine, runAdminCommand } from "./run-admin-command.ts";

/**
 * Runs one operator operation like `token` runs its own: through a running server's control socket, or on
 * the store opened here; every result is printed as JSON, one line per row.
 */
export function runOperatorOperation(
  config: ServerConfig,
  operation: OperatorOperation,
  request: object,
): Promise<number> {
  return runAdminCommand(config, {
    name: operation,
    request,
    run: async (db) => {
      // The column `environment default` writes may be new: a store that was never served is brought up to date.
      await migrateReferenceSchema(db);
      return OPERATOR_OPERATIONS[operation](db, request);
    },
    print: (result: unknown) => {
      for (const row of Array.isArray(result) ? result : [result]) printLine(row);
    },
  });
}
