import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { appendFile, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { promisify } from "node:util";
import { freePort, runAsService, serviceDirectory } from "./local-processes.ts";

/**
 * A real streaming replica of the local PostgreSQL, made by a test set-up: `pg_basebackup -R` into a
 * temporary directory, started with Debian's `pg_ctl` on a port of its own (as the `postgres` user when
 * the tests run as root: PostgreSQL refuses root).
 */

const BIN = ["/usr/lib/postgresql/15/bin", "/usr/lib/postgresql/16/bin", "/usr/lib/postgresql/17/bin"].find((dir) =>
  existsSync(join(dir, "pg_ctl")),
);

/** Whether the replica suites run: always under CI, else when PostgreSQL's server binaries are here. */
export function replicaAvailable(): boolean {
  return process.env.CI === "true" || BIN !== undefined;
}

export interface Replica {
  port: number;
  /** A URL of `database` on the replica. */
  url(database: string): string;
  /** `pg_wal_replay_pause()`: it keeps receiving WAL but shows nothing newer until resumed. */
  pauseReplay(): Promise<void>;
  resumeReplay(): Promise<void>;
  /** Waits until it has replayed all the primary had written when called. */
  catchUp(timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

const REPLICATION_RULE = "host replication all 127.0.0.1/32 trust";

/**
 * The primary must accept replication connections from 127.0.0.1: the local cluster's pg_hba.conf has
 * no such line by default (`all` does not cover `replication`), so this appends one (once: it checks
 * pg_hba_file_rules first) and reloads. Same trust as the rule for ordinary connections here.
 */
async function allowLocalReplication(primary: string): Promise<void> {
  const rules = await psql(
    primary,
    `select count(*) from pg_hba_file_rules
      where 'replication' = any(database) and type = 'host' and address = '127.0.0.1'`,
  );
  if (Number(rules) > 0) return;
  const file = await psql(primary, "show hba_file");
  const text = await readFile(file, "utf8");
  if (!text.includes(REPLICATION_RULE)) await appendFile(file, `\n${REPLICATION_RULE}\n`);
  await psql(primary, "select pg_reload_conf()");
  await sleep(200);
}

/** One statement through psql (no driver here): its single value, as text. */
async function psql(url: string, sql: string): Promise<string> {
  const { stdout } = await promisify(execFile)("psql", [url, "-XAtq", "-v", "ON_ERROR_STOP=1", "-c", sql]);
  return stdout.trim();
}

/**
 * `pg_basebackup`, tried again when the cluster dropped the WAL its stream was about to read: its
 * temporary slot is made only once the backup has begun, and the suites beside it write WAL fast enough on
 * a busy host for a checkpoint to recycle a segment in between ("has already been removed"), or to find
 * the new slot behind what it keeps and end the stream's process to invalidate it ("terminating process
 * … to release replication slot" in the server's log; pg_basebackup sees "administrator command"). It
 * removes its data directory when it fails, so a second try starts clean.
 */
const WAL_RACE = ["has already been removed", "terminating connection due to administrator command"];

async function baseBackup(file: string, args: string[]): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await runAsService(file, args);
      return;
    } catch (error) {
      if (attempt >= 3 || !WAL_RACE.some((text) => String(error).includes(text))) throw error;
    }
  }
}

export async function startReplica(primaryUrl: string): Promise<Replica> {
  if (!BIN) throw new Error("PostgreSQL's server binaries are not installed (/usr/lib/postgresql/*/bin)");
  const bin = BIN;
  const primary = primaryUrl;
  const dir = await serviceDirectory("replica-");
  const data = join(dir, "data");
  let started = false;
  try {
    await allowLocalReplication(primary);
    const settings = await psql(
      primary,
      `select string_agg(name || ' = ' || setting, E'\n') from pg_settings where name in
        ('max_connections', 'max_worker_processes', 'max_wal_senders', 'max_prepared_transactions',
         'max_locks_per_transaction')`,
    );
    const url = new URL(primaryUrl);
    await baseBackup(join(bin, "pg_basebackup"), [
      ...["-h", url.hostname, "-p", url.port || "5432", "-U", url.username || "postgres"],
      ...["-D", data, "-R", "-X", "stream", "-c", "fast"],
    ]);
    const port = await freePort();
    // A hot standby needs these at least as high as its primary's.
    const copied = settings.split("\n");
    await writeFile(
      join(data, "postgresql.conf"),
      [
        `port = ${port}`,
        "listen_addresses = '127.0.0.1'",
        `unix_socket_directories = '${dir}'`,
        `hba_file = '${join(data, "pg_hba.conf")}'`,
        "shared_buffers = 16MB",
        "hot_standby = on",
        "fsync = off",
        ...copied,
        "",
      ].join("\n"),
    );
    await writeFile(join(data, "pg_hba.conf"), "local all all trust\nhost all all 127.0.0.1/32 trust\n");
    await runAsService(join(bin, "pg_ctl"), ["-D", data, "-l", join(dir, "log"), "-w", "-t", "60", "start"]);
    started = true;
    const database = (url.pathname || "/test").slice(1);
    const replicaUrl = (db: string) => `postgres://postgres@127.0.0.1:${port}/${db}`;
    const admin = replicaUrl(database);
    const replica: Replica = {
      port,
      url: replicaUrl,
      async pauseReplay() {
        await psql(admin, "select pg_wal_replay_pause()");
      },
      async resumeReplay() {
        await psql(admin, "select pg_wal_replay_resume()");
      },
      // Generous by default: the replica replays the whole cluster's WAL, and the suites running beside this
      // one write a lot of it (each `create database` copies template1 into the WAL), most of it while a test
      // keeps replay paused. The tests assert what the replica shows once caught up, not how fast it gets there.
      // Two catch-ups fit in a test's 90 s, so a slow one fails with this message, not the test's timeout.
      async catchUp(timeoutMs = 40_000) {
        // A record of its own first: right after a WAL switch (as a base backup ends) the insert position lies
        // past the next segment's header, which nothing replays until the primary writes again.
        await psql(primary, "select pg_logical_emit_message(false, 'a2a-test', 'catch-up')");
        const lsn = await psql(primary, "select pg_current_wal_insert_lsn()");
        const until = Date.now() + timeoutMs;
        for (;;) {
          if ((await psql(admin, `select pg_last_wal_replay_lsn() >= '${lsn}'::pg_lsn`)) === "t") return;
          if (Date.now() > until) {
            const where = await psql(
              admin,
              `select format('received %s, replayed %s (%s bytes behind), replay %s', pg_last_wal_receive_lsn(),
                 pg_last_wal_replay_lsn(), pg_wal_lsn_diff('${lsn}', pg_last_wal_replay_lsn()),
                 pg_get_wal_replay_pause_state())`,
            ).catch((error: Error) => `its state unreadable: ${error.message}`);
            throw new Error(`the replica did not replay up to ${lsn} in ${timeoutMs} ms: ${where}`);
          }
          await sleep(50);
        }
      },
      async stop() {
        await runAsService(join(bin, "pg_ctl"), ["-D", data, "-m", "immediate", "-w", "stop"]).catch(() => undefined);
        await rm(dir, { recursive: true, force: true });
      },
    };
    await replica.catchUp(30_000);
    return replica;
  } catch (error) {
    if (started) await runAsService(join(bin, "pg_ctl"), ["-D", data, "-m", "immediate", "-w", "stop"]).catch(() => {});
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}
