/**
 * Why a request's credential was refused, as the log says it: a fixed phrase an operator can count and
 * search for, never the token or any part of the header's value.
 */
export type RefusalReason =
  | "no Authorization header"
  | "Authorization is not a Bearer token"
  | "unknown, revoked or expired token"
  | "user token on the partner endpoint"
  | "partner token on a user endpoint";

/** The reason a header yielded no bearer token: absent, or something other than `Bearer <token>`. */
export function missingTokenReason(header: string | null | undefined): RefusalReason {
  return header ? "Authorization is not a Bearer token" : "no Authorization header";
}
