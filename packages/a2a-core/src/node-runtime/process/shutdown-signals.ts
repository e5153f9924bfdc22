import type { RuntimeLogger } from "../runtime-logger.js";

/** What `stopOnSignals` needs once the process is up. */
export interface SignalledShutdown {
  /** How to stop, once started; a signal that came while starting stops the process now. */
  started(stop: () => Promise<void>): void;
}

/**
 * Graceful shutdown on SIGTERM and SIGINT: `stop`, then exit 0 (1 when stopping failed, logged). Call it
 * before starting: a signal in between would otherwise kill the process outright (no grace for running
 * work, and a supervisor such as pnpm reports the signal as a failed command). A repeated signal (a
 * supervisor's, or the terminal's Ctrl-C reaching both pnpm and node) does not cut the graceful shutdown
 * short; SIGKILL does.
 */
export function stopOnSignals(logger: Pick<RuntimeLogger, "info" | "error">): SignalledShutdown {
  let stop: (() => Promise<void>) | undefined;
  let signalled = false;
  const finish = (stopProcess: () => Promise<void>) =>
    stopProcess().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, "shutdown failed");
        process.exit(1);
      },
    );
  const shutdown = (signal: string) => {
    if (signalled) {
      logger.info({ signal }, "signal received again: already shutting down");
      return;
    }
    signalled = true;
    logger.info({ signal }, "signal received");
    if (stop) void finish(stop); // else: still starting; it stops as soon as it is up
  };
  process.on("SIGTERM", () => shutdown("SIGTERM"));
  process.on("SIGINT", () => shutdown("SIGINT"));
  return {
    started(stopProcess) {
      stop = stopProcess;
      if (signalled) void finish(stopProcess);
    },
  };
}

/**
 * A reader that stops early (`| head -1`, a `jq` that failed) closes the pipe: the next write gets EPIPE.
 * Without a listener Node throws it as an unhandled error with a stack trace; with this one the process
 * stops writing there and exits with the code its command earned (the work is done; the reader chose
 * not to read all of it), as ripgrep and git's porcelain do.
 */
export function endQuietlyOnClosedPipe(stream: NodeJS.WriteStream): void {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE" || error.code === "ERR_STREAM_DESTROYED") {
      stream.destroy();
      return;
    }
    throw error;
  });
}
