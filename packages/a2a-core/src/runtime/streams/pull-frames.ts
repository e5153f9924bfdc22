import type { SseSink } from "../../ports/handler-response.js";

/**
 * A started stream as an async iterable: frames queue up as the stream writes them and are taken by
 * `next()`. The queue is bounded like any client's backlog: a reader that stays too far behind is
 * dropped by the stream (its `next()` then rejects).
 */
export function pullFrames(start: (sink: SseSink) => () => void): AsyncIterable<string> {
  return {
    [Symbol.asyncIterator](): AsyncIterator<string> {
      const queue: string[] = [];
      let queued = 0;
      let done = false;
      let failed: Error | undefined;
      let wake: (() => void) | undefined;
      const notify = () => {
        const resolve = wake;
        wake = undefined;
        resolve?.();
      };
      const stop = start({
        write(chunk) {
          if (done) return;
          queue.push(chunk);
          queued += chunk.length;
          notify();
        },
        get backlog() {
          return queued;
        },
        end() {
          done = true;
          notify();
        },
        abort() {
          done = true;
          failed = new Error("The reader fell too far behind the stream");
          notify();
        },
      });
      return {
        async next(): Promise<IteratorResult<string>> {
          for (;;) {
            const chunk = queue.shift();
            if (chunk !== undefined) {
              queued -= chunk.length;
              return { done: false, value: chunk };
            }
            if (failed) throw failed;
            if (done) return { done: true, value: undefined };
            await new Promise<void>((resolve) => {
              wake = resolve;
            });
          }
        },
        async return(): Promise<IteratorResult<string>> {
          if (!done) {
            done = true;
            stop();
          }
          queue.length = 0;
          return { done: true, value: undefined };
        },
      };
    },
  };
}
