import { ConfigError, redactSecrets } from "@a2a-partner/a2a-core/node-runtime";

/**
 * How a server reaches PostgreSQL besides `DATABASE_URL` (docs/operations.md, "Past one database box"):
 * a direct URL for `LISTEN`, a streaming replica for reads that allow it, and whether `DATABASE_URL` is a
 * pooler in transaction mode.
 */
export interface DatabaseConnections {
  /** DATABASE_LISTEN_URL: where the `LISTEN` connections go; unset: DATABASE_URL. */
  listenUrl: string | undefined;
  /** DATABASE_READ_URL: a streaming replica (metrics, ended tasks); unset: everything on DATABASE_URL. */
  readUrl: string | undefined;
  /** DATABASE_POOLER=transaction: DATABASE_URL (and DATABASE_READ_URL) go through a transaction pooler. */
  transactionPooler: boolean;
}

/**
 * DATABASE_LISTEN_URL, DATABASE_READ_URL and DATABASE_POOLER (`none` or `transaction`), checked against
 * DATABASE_URL: each needs it, and a transaction pooler needs a direct URL for LISTEN. A mistake is a
 * ConfigError naming the variable.
 */
export function databaseConnections(env: NodeJS.ProcessEnv): DatabaseConnections {
  const url = postgresUrlSetting(env.DATABASE_URL, "DATABASE_URL");
  const listenUrl = postgresUrlSetting(env.DATABASE_LISTEN_URL, "DATABASE_LISTEN_URL");
  const readUrl = postgresUrlSetting(env.DATABASE_READ_URL, "DATABASE_READ_URL");
  const pooler = env.DATABASE_POOLER || "none";
  if (pooler !== "none" && pooler !== "transaction") {
    throw new ConfigError(`DATABASE_POOLER must be none or transaction, got "${pooler}"`);
  }
  const transactionPooler = pooler === "transaction";
  if (!url && (listenUrl || readUrl || transactionPooler)) {
    const named = listenUrl ? "DATABASE_LISTEN_URL" : readUrl ? "DATABASE_READ_URL" : "DATABASE_POOLER";
    throw new ConfigError(`${named} needs DATABASE_URL: the embedded store has no other connection`);
  }
  if (transactionPooler && !listenUrl) {
    // Through a transaction pooler LISTEN is accepted and then hears nothing: streams would lag 5 s.
    throw new ConfigError(
      "DATABASE_POOLER=transaction needs DATABASE_LISTEN_URL, a direct connection to PostgreSQL for LISTEN",
    );
  }
  return { listenUrl, readUrl, transactionPooler };
}

/** A postgres(ql):// URL; anything else failed later as a DNS error about a host the value never named. */
export function postgresUrlSetting(value: string | undefined, name: string): string | undefined {
  if (!value) return undefined;
  const url = URL.parse(value);
  if (url === null || (url.protocol !== "postgres:" && url.protocol !== "postgresql:")) {
    throw new ConfigError(`${name} must be a postgres:// or postgresql:// URL, got "${redactSecrets(value)}"`);
  }
  return value;
}
