/**
 * How long PostgreSQL keeps sending to a LISTEN session that reads nothing before it cuts the connection
 * (`tcp_user_timeout`). A listener that stops reading (its process frozen, its host gone without a
 * reset) holds back the cluster's one NOTIFY queue: PostgreSQL cannot drop a notification some listener
 * has not read, and once the queue's 8 GB are full every NOTIFY, and so every commit of every instance,
 * fails. Cut, the listener connects again once it runs and re-reads what it may have missed.
 */
export const LISTEN_TCP_USER_TIMEOUT_MS = 30_000;

/**
 * UTC sessions, like PGlite: `::date`, `date_trunc` and timestamp text must not depend on the server's
 * configured zone. A startup option, so it holds before the first query; an explicit TimeZone wins.
 */
export const UTC_SESSIONS: Readonly<Record<string, string>> = { TimeZone: "UTC" };

/** The LISTEN session's: UTC, and cut by PostgreSQL once it stops reading. */
export const LISTEN_SESSIONS: Readonly<Record<string, string>> = {
  ...UTC_SESSIONS,
  tcp_user_timeout: String(LISTEN_TCP_USER_TIMEOUT_MS),
};

/** What a node-postgres connection is given: the connection string and the startup `options` to send. */
export interface SessionStartup {
  connectionString: string;
  options: string;
}

/**
 * The startup of a session that asks for `settings` (`-c name=value`) on top of the `options` it is
 * given, where neither names them already: an operator's own value wins. The connection string's
 * `options` parameter counts as given (node-postgres would let it replace the `options` field whole, and
 * drop these settings with it), so it is taken out of the string and sent with them.
 */
export function sessionStartup(
  connectionString: string,
  configured: string | undefined,
  settings: Readonly<Record<string, string>>,
): SessionStartup {
  const fromUrl = takeOptionsParameter(connectionString);
  let options = (fromUrl ? fromUrl.options : configured)?.trim() ?? "";
  for (const [name, value] of Object.entries(settings)) {
    if (settingIn(options, name)) continue;
    options = `${options} -c ${name}=${value}`.trim();
  }
  return { connectionString: fromUrl ? fromUrl.connectionString : connectionString, options };
}

/** Whether `options` sets `name` (`-c name=…`, `-cname=…` or `--name=…`), not merely mentions it in a value. */
function settingIn(options: string, name: string): boolean {
  return new RegExp(`(?:^|\\s)(?:-c\\s*|--)${name}\\s*=`, "i").test(options);
}

/** The string without its `options` query parameter, and that parameter; undefined when it has none. */
function takeOptionsParameter(connectionString: string): SessionStartup | undefined {
  // The query alone: node-postgres reads forms a URL parser refuses (a user with the host left empty).
  const queryAt = connectionString.indexOf("?");
  if (queryAt < 0) return undefined;
  const parameters = new URLSearchParams(connectionString.slice(queryAt + 1));
  // Given twice, the last one, as node-postgres reads it.
  const options = parameters.getAll("options").at(-1);
  if (options === undefined) return undefined;
  parameters.delete("options");
  const rest = parameters.toString();
  return { connectionString: connectionString.slice(0, queryAt) + (rest ? `?${rest}` : ""), options };
}
