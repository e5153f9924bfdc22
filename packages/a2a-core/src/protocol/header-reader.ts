/**
 * Request headers as this package reads them: a web `Headers` fits, and so does a thin view of node's.
 * At the bottom of the layers because the protocol itself reads headers (the `A2A-Version` a request
 * asks for, the agent card it is served).
 */
export interface HeaderReader {
  /** The header's value (several values joined by ", "), or null when absent. Names are case-insensitive. */
  get(name: string): string | null;
}

/**
 * The request headers a function of this package takes from you, in whichever shape your framework has:
 * a web `Headers` (Fetch, Bun, Deno, hono's `c.req.raw.headers`), Express's `req` (its `get` answers
 * undefined for an absent header), or node's `req.headers` (`IncomingHttpHeaders`, lower-case names).
 */
export type RequestHeaders =
  | HeaderReader
  | { get(name: string): string | readonly string[] | null | undefined }
  | Readonly<Record<string, string | readonly string[] | undefined>>;

/** `headers` as a HeaderReader: absent is null, several values are joined by ", ". */
export function readHeaders(headers: RequestHeaders): HeaderReader {
  if (typeof headers.get === "function") {
    // Called as a method: Express's `req.get` reads `this`.
    const getter = headers as { get(name: string): string | readonly string[] | null | undefined };
    return { get: (name) => joined(getter.get(name)) };
  }
  const record = headers as Readonly<Record<string, string | readonly string[] | undefined>>;
  return { get: (name) => joined(record[name.toLowerCase()]) };
}

function joined(value: string | readonly string[] | null | undefined): string | null {
  if (value === undefined || value === null) return null;
  return typeof value === "string" ? value : value.join(", ");
}
