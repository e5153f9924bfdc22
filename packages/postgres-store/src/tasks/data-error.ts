import { InvalidParamsError } from "@a2a-partner/a2a-core";

/**
 * Whether a database error was caused by the data it was given rather than by the database: SQLSTATE class
 * 22, "data exception" (22P02 invalid text representation, 22P05 untranslatable character, 22021 invalid
 * byte sequence, 22032 invalid JSON text, 22001 value too long …). Sending the same values again fails the
 * same way, so such an error must never be answered as an outage (503, "retry"). Both drivers (pg and
 * PGlite) put the SQLSTATE in `code`; a Node system error's code (`ECONNREFUSED`) never matches.
 */
export function isDataError(error: unknown): boolean {
  const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === "string" && /^22[0-9A-Z]{3}$/.test(code);
}

/**
 * Whether a statement failed because of what one of its rows holds (SQLSTATE class 22, data exception, or
 * 23, integrity constraint violation such as a foreign key) rather than because the database could not
 * run it: only then can running the same rows one at a time isolate the culprit.
 */
export function isRowError(error: unknown): boolean {
  const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === "string" && /^2[23][0-9A-Z]{3}$/.test(code);
}

/**
 * Turns a data exception raised while storing a request's values into a2a-core's InvalidParamsError, which
 * the handler answers as -32602 (the request is wrong, do not retry); any other error is returned as it
 * is. The driver's message stays in `cause` for the log: it never reaches the client.
 */
export function asRequestDataError(error: unknown): unknown {
  if (!isDataError(error)) return error;
  return InvalidParamsError.forField("params", "the request holds a value the store cannot keep", { cause: error });
}
