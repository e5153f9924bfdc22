import {
  controlSocketPaths,
  EXIT_CODES,
  NotFoundError,
  sendControlCommand,
  UsageError,
} from "@a2a-partner/a2a-core/node-runtime";
import type { Database } from "../database.js";
import { retryWhileLocked } from "../pglite/retry-while-locked.js";

/** One admin command: what to ask a running server, what to do without one, how to show the result. */
export interface StoreCommand<Result> {
  /** The control socket's name for it (`POST /<name>`: a2a-core/node-runtime's `startControlSocket`). */
  name: string;
  /** What the running server receives (JSON). */
  request: unknown;
  /** Run here, on a store this process opened. */
  run(db: Database): Promise<Result>;
  /** stdout (the result) and, if it helps, stderr (notes); never a secret in a note. */
  print(result: Result): void;
}

/** Where `runStoreCommand` finds the store, and the server that may hold it. */
export interface StoreCommandOptions {
  /** DATABASE_URL; set: PostgreSQL, which any number of processes share, so the command runs here. */
  url: string | undefined;
  /** The embedded store's data directory; its server's control socket is beside it (`controlSocketPaths`). */
  dataDir: string;
  /** Opens the store in this process, under the data directory's lock (`openConfiguredDatabase`). */
  open(): Promise<Database>;
  /** The lock owner a server holds the data directory as: waited for while it opens its control socket. */
  serverOwner: string;
  /** How long to wait for such a server (ms). Default 30 000. */
  waitMs?: number;
}

/**
 * Runs an admin command and returns the exit code (a2a-core/node-runtime's `EXIT_CODES`). With the
 * embedded store a running server owns the data directory, so the command goes to it over its control
 * socket; with no server this process opens the store itself, under the data directory's lock. A server
 * that holds the lock but has no socket yet (it is opening or migrating) is waited for, so a command
 * right after the server's start reaches it. A UsageError is its message on stderr and exit 2 (a
 * NotFoundError: 1), as is a server's 400 (other refusals: 1).
 */
export async function runStoreCommand<Result>(
  command: StoreCommand<Result>,
  options: StoreCommandOptions,
): Promise<number> {
  if (options.url) return runLocally(command, options);
  const paths = controlSocketPaths(options.dataDir);
  const inServerOrHere = async () => {
    const answer = await sendControlCommand(paths, command.name, command.request);
    if (!answer) return runLocally(command, options);
    if (answer.status !== 200) {
      process.stderr.write(`${answer.body.error ?? "the command failed"}\n`);
      return answer.status === 400 ? EXIT_CODES.usage : EXIT_CODES.failure;
    }
    command.print(answer.body.result as Result);
    return EXIT_CODES.ok;
  };
  return retryWhileLocked(inServerOrHere, {
    waitFor: (holder) => holder.owner === options.serverOwner,
    timeoutMs: options.waitMs ?? 30_000,
  });
}

async function runLocally<Result>(command: StoreCommand<Result>, options: StoreCommandOptions): Promise<number> {
  const db = await options.open();
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
