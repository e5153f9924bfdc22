import type { Server } from "node:http";
import {
  type ControlSocketPaths as ControlPaths,
  startControlSocket as listenForCommands,
  NotFoundError,
  UsageError,
} from "@a2a-partner/a2a-core/node-runtime";
import type { Database } from "@a2a-partner/postgres-store";
import type { Logger } from "pino";
import { generateMetrics } from "../admin/generate-metrics.ts";
import { createWorkspaceToken, listTokens, revokeToken, type TokenRequest } from "../admin/token-operations.ts";
import { OPERATOR_OPERATIONS, type OperatorOperation } from "../admin/workspace-operations.ts";
import { migrateReferenceSchema } from "../migrations.ts";
import { seed } from "../seed.ts";

/** The admin commands a running server runs for the CLI, each on the store it holds. */
function controlCommands(db: Database) {
  const operations = Object.fromEntries(
    Object.entries(OPERATOR_OPERATIONS).map(([name, operation]) => [name, (input: unknown) => operation(db, input)]),
  ) as Record<OperatorOperation, (input: unknown) => Promise<unknown>>;
  return {
    ...operations,
    generate: async (input) => {
      const { args } = input as { args?: unknown };
      if (!Array.isArray(args) || !args.every((a) => typeof a === "string"))
        throw new UsageError("args must be strings");
      return generateMetrics(db, args);
    },
    revoke: (input) => revokeToken(db, String((input as { ref?: unknown }).ref ?? "")),
    tokens: (input) => listTokens(db, input as { workspace?: string }),
    migrate: () => migrateReferenceSchema(db),
    seed: () => seed(db),
    token: (input) => createWorkspaceToken(db, input as TokenRequest),
  } satisfies Record<string, (input: unknown) => Promise<unknown>>;
}

/**
 * The embedded store (PGlite) can be open in one process only. While the server runs, it answers the
 * CLI's admin commands on a control socket (a2a-core/node-runtime) in an owner-only directory beside the
 * data directory, so the CLI never opens the data directory a second time. The caller holds the data
 * directory's lock, so a socket file already there was left by a server that died.
 */
export function startControlSocket(db: Database, paths: ControlPaths, logger: Logger): Promise<Server> {
  return listenForCommands(paths, {
    commands: controlCommands(db),
    // 404: the CLI exits 1 (it names something that does not exist); 400: exit 2 (the command line).
    statusOf: (error) => (error instanceof NotFoundError ? 404 : error instanceof UsageError ? 400 : undefined),
    logger,
  });
}

/** The admin commands a running server answers on its control socket, by name. */
export type ControlCommand = keyof ReturnType<typeof controlCommands>;
