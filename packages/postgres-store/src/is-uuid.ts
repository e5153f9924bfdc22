const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const UPPER_CASE = /[A-F]/;

/**
 * Whether `value` is PostgreSQL's canonical `uuid` text (any case). Ids are `uuid` columns: a malformed
 * id from a client must read as "no such row", not reach PostgreSQL and fail there. Other spellings
 * PostgreSQL would also accept (braces, no hyphens) are deliberately not UUIDs here.
 */
export function isUuid(value: unknown): boolean {
  return typeof value === "string" && UUID.test(value);
}

/**
 * A UUID's text as PostgreSQL writes it (lower case). The same string when it already is, so hot paths
 * over thousands of ids (lease renewals, the watched tasks' re-check) allocate nothing for them.
 */
export function canonicalUuid(id: string): string {
  return UPPER_CASE.test(id) ? id.toLowerCase() : id;
}
