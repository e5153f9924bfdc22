import type { HeaderReader } from "../protocol/header-reader.js";

/** Who is calling. A partner token resolves to the one workspace it is scoped to. */
export type AuthOutcome =
  | {
      ok: true;
      workspaceId: string;
      /** Identifies the credential (e.g. the token's id): the key of rate limits and stream caps, and logged. */
      principal?: string;
    }
  | {
      ok: false;
      /** 401: missing or invalid credential; 403: valid but not allowed here (e.g. a user session token). */
      status: 401 | 403;
      message: string;
    };

export type Authenticate = (headers: HeaderReader) => Promise<AuthOutcome>;
