import type { Queryable } from "@a2a-partner/postgres-store";
import { db } from "../embedding/database.ts";

// What the fragment takes as given: a logger, a row type and the read the cache saves.
const logger = { warn: (fields: object, message: string) => console.warn(message, fields) };
interface Token {
  id: string;
}
async function readToken(queryable: Queryable, hash: string): Promise<Token | undefined> {
  const { rows } = await queryable.query<Token>("select $1::text as id where $1 <> ''", [hash]);
  return rows[0];
}

// #region snippet
import { CacheInvalidation, InvalidatedCache } from "@a2a-partner/postgres-store";

const invalidation = new CacheInvalidation(db, {
  channel: "my_cache_changes",
  onUnavailable: (error) => logger.warn({ err: error }, "cache bypassed until LISTEN works"),
});
void invalidation.start();
const tokens = new InvalidatedCache<Token>(invalidation, ["api_tokens"], 10_000); // tables, capacity

// From memory, else read and remembered (unless a change was announced during the read).
function token(hash: string): Promise<Token | undefined> {
  return tokens.lookup(hash, () => readToken(db, hash));
}
// on shutdown, before db.close():
await invalidation.close();
// #endregion snippet
export { db, token };
