import { runStoreCommand, type StoreCommand } from "@a2a-partner/postgres-store";
import type { ServerConfig } from "../config.ts";
import { openConfiguredDatabase, SERVER_LOCK_OWNER } from "../configured-database.ts";
import type { ControlCommand } from "../control/control-socket.ts";

/** One admin command (postgres-store's StoreCommand), named as the control socket knows it. */
export interface AdminCommand<Result> extends StoreCommand<Result> {
  /** The control socket's name for it (and the CLI's lock owner: `cli <name>`). */
  name: ControlCommand;
}

/**
 * Runs an admin command and returns the exit code: in the running server that holds the embedded store
 * (through its control socket, waited for while it starts), or here (postgres-store's runStoreCommand).
 */
export function runAdminCommand<Result>(config: ServerConfig, command: AdminCommand<Result>): Promise<number> {
  return runStoreCommand(command, {
    url: config.databaseUrl,
    dataDir: config.dataDir,
    open: () => openConfiguredDatabase(config, `cli ${command.name}`),
    serverOwner: SERVER_LOCK_OWNER,
  });
}

/** Prints a result as the CLI always has: a string as it is, anything else as one line of JSON. */
export function printLine(result: unknown): void {
  process.stdout.write(`${typeof result === "string" ? result : JSON.stringify(result)}\n`);
}
