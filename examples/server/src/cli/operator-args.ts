import { parseArgs } from "node:util";
import { AdminUsageError } from "../admin/usage-error.ts";
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

/** The command line after `<group> <verb>`, with the group's options; a malformed one is a usage error (exit 2). */
export function parseOperatorArgs(
  args: string[],
  options: Record<string, { type: "string" | "boolean" }>,
  usage: string,
): { verb: string | undefined; positionals: string[]; values: Record<string, string | boolean | undefined> } {
  try {
    const { positionals, values } = parseArgs({ args, allowPositionals: true, options });
    const [verb, ...rest] = positionals;
    return { verb, positionals: rest, values };
  } catch (error) {
    throw new AdminUsageError(`${error instanceof Error ? error.message : String(error)}\n\n${usage}`);
  }
}

/** Refuses arguments a verb does not take, instead of ignoring them. */
export function expectPositionals(positionals: string[], count: number, what: string, usage: string): void {
  if (positionals.length !== count) throw new AdminUsageError(`${what}\n\n${usage}`);
}

/** The options of a command that takes no words (`prune`, `push-secret`); any word is a usage error. */
export function parseOptionsOnly(
  command: string,
  args: string[],
  options: Record<string, { type: "string" | "boolean" }>,
  usage: string,
): Record<string, string | boolean | undefined> {
  const { verb, positionals, values } = parseOperatorArgs(args, options, usage);
  expectPositionals([...(verb === undefined ? [] : [verb]), ...positionals], 0, `${command} takes only options`, usage);
  return values;
}
