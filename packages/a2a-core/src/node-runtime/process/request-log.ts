import type { RequestListener } from "node:http";
import type { RuntimeLogger } from "../runtime-logger.js";

/** A logger that says whether a level is on (pino's fits), so a request off that level costs nothing. */
export interface LevelCheckingLogger extends Pick<RuntimeLogger, "debug"> {
  isLevelEnabled(level: string): boolean;
}

/**
 * At debug, a line per request once its answer ends (a stream: when it closes): method, path without the
 * query, status and duration. Nothing from headers or body. At info and above it costs one level check.
 */
export function withRequestLog(listener: RequestListener, logger: LevelCheckingLogger): RequestListener {
  return (req, res) => {
    if (logger.isLevelEnabled("debug")) {
      const started = performance.now();
      const path = req.url?.split("?", 1)[0];
      res.once("close", () => {
        const ms = Math.round((performance.now() - started) * 10) / 10;
        logger.debug(
          { method: req.method, path, status: res.statusCode, ms, ...(res.writableFinished ? {} : { aborted: true }) },
          "request",
        );
      });
    }
    listener(req, res);
  };
}
