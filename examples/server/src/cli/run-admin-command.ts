import {
  controlSocketPaths,
  EXIT_CODES,
  NotFoundError,
  sendControlCommand,
  UsageError,
} from "@a2a-partner/a2a-core/node-runtime";
import { type Database, retryWhileLocked } from "@a2a-partner/postgres-store";
import type { ServerConfig } from "../config.ts";
import { openConfiguredDatabase, SERVER_LOCK_OWNER } from "../configured-database.ts";
import type { ControlCommand } from "../control/control-socket.ts";

/** One admin command: what to ask a running server, what to do without one, how to show the result. */
export interface AdminCommand<Result> {
  /** The control socket's name for it (and the CLI's lock owner: `cli <name>`). */
  name: ControlCommand;
  /** What the running server receives (JSON). */
  request: unknown;
  /** Run here, on a store this process opened. */
  run(db: Database): Promise<Result>;
  /** stdout (the result) and, if it helps, stderr (notes); never a secret in a note. */
  print(result: Result): void;
}

/** How long the CLI waits for a server that holds the data directory to open its control socket. */
const WAIT_FOR_SERVER_MS = 30_000;

/**
 * Runs an admin command and returns the exit code. With the embedded store a running server owns the data
 * directory, so the command goes to it over the control socket; with no server the CLI opens the store
 * itself, under the data directory's lock. A server that holds the lock but has no socket yet (it is
 * opening or migrating) is waited for, so `pnpm cli seed` right after `pnpm start` reaches it.
 */
export async function runAdminCommand<Result>(config: ServerConfig, command: AdminCommand<Result>): Promise<number> {
  if (config.databaseUrl) return runLocally(config, command);
  const paths = controlSocketPaths(config.dataDir);
  const inServerOrHere = async () => {
    const answer = await sendControlCommand(paths, command.name, command.request);
    if (!answer) return runLocally(config, command);
    if (answer.status !== 200) {
      process.stderr.write(`${answer.body.error ?? "the command failed"}\n`);
      return answer.status === 400 ? EXIT_CODES.usage : EXIT_CODES.failure;
    }
    command.print(answer.body.result as Result);
    return EXIT_CODES.ok;
  };
  return retryWhileLocked(inServerOrHere, {
    waitFor: (holder) => holder.owner === SERVER_LOCK_OWNER,
    timeoutMs: WAIT_FOR_SERVER_MS,
  });
}

async function runLocally<Result>(config: ServerConfig, command: AdminCommand<Result>): Promise<number> {
  const db = await openConfiguredDatabase(config, `cli ${command.name}`);
  try {
    command.print(await command.run(db));
    return EXIT_CODES.ok;
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`${error.message}\n`);
      return error instanceof NotFoundError ? EXIT_CODES.failure : EXIT_CODES.usage;
    }
    throw error;
  } finally {
    await db.close();
  }
}

/** Prints a result as the CLI always has: a string as it is, anything else as one line of JSON. */
export function printLine(result: unknown): void {
  process.stdout.write(`${typeof result === "string" ? result : JSON.stringify(result)}\n`);
}
