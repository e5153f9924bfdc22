import type { Authenticate } from "@a2a-partner/a2a-core";
import type { Queryable } from "@a2a-partner/postgres-store";
import { bearerToken, resolveToken } from "./tokens.ts";

/** The A2A endpoint's rule (DESIGN §6): a live partner token → its workspace; a user token → 403; else 401. */
export function partnerAuthenticator(db: Queryable): Authenticate {
  return async (headers) => {
    const token = bearerToken(headers.get("authorization"));
    if (!token)
      return { ok: false, status: 401, message: "Missing bearer token: send Authorization: Bearer <APIToken>" };
    const resolved = await resolveToken(db, token);
    if (!resolved) return { ok: false, status: 401, message: "Invalid or revoked bearer token" };
    if (resolved.kind !== "partner" || !resolved.workspaceId) {
      return {
        ok: false,
        status: 403,
        message: "A user session token is not accepted here: use a workspace partner token",
      };
    }
    return { ok: true, workspaceId: resolved.workspaceId, principal: `token:${resolved.id}` };
  };
}
