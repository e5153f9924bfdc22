import { type IncomingMessage, type ServerResponse, STATUS_CODES } from "node:http";
import type { RuntimeLogger } from "../runtime-logger.js";

/**
 * Writes a problem answer (RFC 9457, `application/problem+json`): `about:blank`, the status's title, the
 * status, and `detail` when given. Headers already set on `res` (security headers) go out with it.
 */
export function sendProblem(res: ServerResponse, status: number, detail?: string): void {
  const title = STATUS_CODES[status] ?? "Error";
  const body = JSON.stringify({ type: "about:blank", title, status, ...(detail ? { detail } : {}) });
  res.writeHead(status, {
    "content-type": "application/problem+json; charset=utf-8",
    "content-length": Buffer.byteLength(body),
  });
  res.end(body);
}

/** Connect-style last handler (Express, Connect): 404 as a problem answer. */
export function notFoundAnswer(_req: IncomingMessage, res: ServerResponse): void {
  sendProblem(res, 404);
}

/**
 * Connect-style error handler (four parameters, as Express recognises one). An error that carries an HTTP
 * status (`status` 400 to 599, as Express and its body parsers throw) keeps it. Anything else is a store
 * outage or a bug: logged, and answered 503. A 503 carries `Retry-After: 1` so clients retry, and nothing
 * of the cause in the body. Once the answer's headers are out, it is only ended.
 */
export function problemOnError(
  logger: Pick<RuntimeLogger, "error">,
): (error: unknown, req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void {
  // Four parameters, always: Express tells an error handler by its arity.
  return (error, _req, res, _next) => {
    const status = (error as { status?: unknown } | null)?.status;
    const known = typeof status === "number" && status >= 400 && status < 600;
    if (!known) logger.error({ err: error }, "request failed");
    if (res.headersSent) {
      res.end();
      return;
    }
    const code = known ? status : 503;
    if (code === 503) res.setHeader("retry-after", "1");
    sendProblem(res, code, code === 503 ? "Temporarily unavailable; retry the request" : undefined);
  };
}
