/**
 * The subset of a pino logger the process set-up writes to (pino's `Logger` fits as it is): leveled
 * lines of fields and a message, and a child logger that adds fields to each of its lines.
 */
export interface RuntimeLogger {
  child(bindings: Record<string, unknown>): RuntimeLogger;
  error(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  debug(obj: object, msg?: string): void;
  trace(obj: object, msg?: string): void;
}
