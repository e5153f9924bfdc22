/** The subset of a pino logger the handler uses; pass a pino instance or anything shaped like it. */
export interface Logger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/**
 * The default logger: warnings and errors on the console, so a failing store or executor is never
 * silent in an application that passed no logger; info (a task started, a stream ended) is not.
 */
export const consoleLogger: Logger = {
  info() {},
  warn(obj, msg) {
    console.warn(`a2a: ${msg ?? "warning"}`, obj);
  },
  error(obj, msg) {
    console.error(`a2a: ${msg ?? "error"}`, obj);
  },
};
