const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Whether `value` is PostgreSQL's canonical `uuid` text (any case). Ids are `uuid` columns: a malformed
 * id from a client must read as "no such row", not reach PostgreSQL and fail there. Other spellings
 * PostgreSQL would also accept (braces, no hyphens) are deliberately not UUIDs here.
 */
export function isUuid(value: unknown): boolean {
  return typeof value === "string" && UUID.test(value);
}
