/**
 * Request headers as this package reads them: a web `Headers` fits, and so does a thin view of node's.
 * At the bottom of the layers because the protocol itself reads headers (the `A2A-Version` a request
 * asks for, the agent card it is served).
 */
export interface HeaderReader {
  /** The header's value (several values joined by ", "), or null when absent. Names are case-insensitive. */
  get(name: string): string | null;
}
