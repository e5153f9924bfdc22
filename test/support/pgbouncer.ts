import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { freePort, serviceDirectory, serviceUser, waitForPort } from "./local-processes.ts";

/**
 * A real PgBouncer (Debian's package) in `pool_mode = transaction`, started by a test set-up on a port of
 * its own with its own configuration, in front of the real PostgreSQL. No authentication (`trust`).
 */

const BINARY = ["/usr/sbin/pgbouncer", "/usr/bin/pgbouncer"].find((path) => existsSync(path));

/** Whether the pooler suites run: always under CI (a missing binary then fails them), else when installed. */
export function pgbouncerAvailable(): boolean {
  return process.env.CI === "true" || BINARY !== undefined;
}

export interface PgBouncerOptions {
  /**
   * Its databases: name → the connection line PgBouncer uses (`host=127.0.0.1 port=5432 dbname=test …`;
   * `timezone=`, `connect_query='…'` are PgBouncer's own keys).
   */
  databases: Record<string, string>;
  /** Server connections per database/user pair (`default_pool_size`). Default 10. */
  poolSize?: number;
  maxClientConnections?: number;
}

export interface PgBouncer {
  port: number;
  /** A client URL for one of its databases. */
  url(database: string): string;
  /** Stops it (SIGTERM, then SIGKILL) and removes its directory. */
  stop(): Promise<void>;
}

export async function startPgBouncer(options: PgBouncerOptions): Promise<PgBouncer> {
  if (!BINARY) throw new Error("pgbouncer is not installed (apt-get install pgbouncer)");
  const dir = await serviceDirectory("pgbouncer-");
  const port = await freePort();
  const databases = Object.entries(options.databases).map(([name, line]) => `${name} = ${line}`);
  const config = [
    "[databases]",
    ...databases,
    "[pgbouncer]",
    "listen_addr = 127.0.0.1",
    `listen_port = ${port}`,
    "unix_socket_dir =",
    "auth_type = trust",
    `auth_file = ${join(dir, "users.txt")}`,
    "pool_mode = transaction",
    `default_pool_size = ${options.poolSize ?? 10}`,
    `max_client_conn = ${options.maxClientConnections ?? 500}`,
    "admin_users = postgres",
    `logfile = ${join(dir, "pgbouncer.log")}`,
    "",
  ].join("\n");
  await writeFile(join(dir, "users.txt"), '"postgres" ""\n', { mode: 0o644 });
  await writeFile(join(dir, "pgbouncer.ini"), config, { mode: 0o644 });
  const child: ChildProcess = spawn(BINARY, [join(dir, "pgbouncer.ini")], { ...serviceUser(), stdio: "ignore" });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  try {
    await Promise.race([
      waitForPort(port),
      exited.then(() => {
        throw new Error(`pgbouncer exited at start; see ${join(dir, "pgbouncer.log")}`);
      }),
    ]);
  } catch (error) {
    child.kill("SIGKILL");
    throw error;
  }
  return {
    port,
    url: (database) => `postgres://postgres@127.0.0.1:${port}/${database}`,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGTERM");
        const killer = setTimeout(() => child.kill("SIGKILL"), 3_000);
        await exited;
        clearTimeout(killer);
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}
