import { type Database, openConfiguredDatabase as openDatabaseFor } from "@a2a-partner/postgres-store";
import type { Logger } from "pino";
import type { ServerConfig } from "./config.ts";

// Apart from server.ts so that the CLI's admin commands open the store without loading the HTTP stack.

/** Who holds the embedded data directory's lock when a server does (the CLI waits for such a holder). */
export const SERVER_LOCK_OWNER = "server";

/**
 * Opens the configured store (postgres-store's openConfiguredDatabase). An embedded data directory is
 * locked for `owner` while it is open; another holder makes this throw DataDirectoryLockedError (the CLI
 * exits with EXIT_CODES.dataDirectoryInUse).
 */
export function openConfiguredDatabase(
  config: ServerConfig,
  owner: string = SERVER_LOCK_OWNER,
  logger?: Logger,
): Promise<Database> {
  return openDatabaseFor({
    url: config.databaseUrl,
    dataDir: config.dataDir,
    connections: config.databaseConnections,
    owner,
    logger,
  });
}
