import type { Queryable } from "@a2a-partner/postgres-store";
import { db } from "../embedding/database.ts";

// What the fragment takes as given: a row type and the read the fence moves to the replica.
interface Token {
  id: string;
}
async function readToken(queryable: Queryable, hash: string): Promise<Token | undefined> {
  const { rows } = await queryable.query<Token>("select $1::text as id where $1 <> ''", [hash]);
  return rows[0];
}

// #region snippet
import { ReplicaFence } from "@a2a-partner/postgres-store";

const fence = new ReplicaFence(db, { channel: "my_access_changes" });
void fence.start(); // without a replica it does nothing, and read() answers undefined

async function token(hash: string): Promise<Token | undefined> {
  return (
    (await fence.read((replica) => readToken(replica, hash))) ?? // the replica, when it shows every change
    (await readToken(db, hash)) // else the primary (also for a miss: it may be a moment old)
  );
}
// on shutdown, before db.close():
await fence.close();
// #endregion snippet
export { token };
