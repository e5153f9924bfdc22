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
