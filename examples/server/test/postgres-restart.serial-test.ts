import { execFileSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { envelope, post, rpc, startParams } from "./support/rpc.ts";
import {
  createPostgresStore,
  eventually,
  openStream,
  seedWithCli,
  startServerProcess,
  stopAllServerProcesses,
} from "./support/server-process.ts";

/**
 * Restarts the machine's real PostgreSQL under a running server. It takes the database away from every
 * other suite, so it runs alone after them (`vitest.serial.config.ts`, the last step of `pnpm test`).
 * Under CI it always runs; elsewhere only with A2A_TEST_PG_RESTART=1 (it needs pg_ctlcluster and root).
 */
const enabled = process.env.CI === "true" || process.env.A2A_TEST_PG_RESTART === "1";

function restartPostgres(): void {
  const version = readdirSync("/etc/postgresql")[0] as string;
  try {
    execFileSync("pg_ctlcluster", ["--skip-systemctl-redirect", version, "main", "restart", "-m", "fast"], {
      stdio: "pipe",
      timeout: 60_000,
    });
  } catch {
    // pg_ctlcluster may report a start as failed while the server comes up; readiness is checked below.
  }
}

function postgresReady(): boolean {
  try {
    execFileSync("pg_isready", ["-h", "127.0.0.1", "-p", "5432", "-q"], { stdio: "pipe", timeout: 5_000 });
    return true;
  } catch {
    return false;
  }
}

describe.runIf(enabled)("a real PostgreSQL restart under a running server", () => {
  afterAll(async () => {
    if (!postgresReady()) {
      const version = readdirSync("/etc/postgresql")[0] as string;
      execFileSync("pg_ctlcluster", ["--skip-systemctl-redirect", version, "main", "start"], { stdio: "pipe" });
    }
    await stopAllServerProcesses();
  });

  it("recovers without a restart of its own: the interrupted task ends once, new tasks run", async () => {
    const store = await createPostgresStore();
    try {
      const env = { ...store.env, ROBOT_STEP_MS: "300", TASK_LEASE_MS: "2000" };
      const seed = await seedWithCli(env);
      const server = await startServerProcess(env);
      const stream = await openStream(
        server.a2aUrl,
        seed.partnerToken,
        "SendStreamingMessage",
        startParams("Restock aisle 5"),
      );
      const first = await stream.until((f) => f.event === "update", 10_000);
      const taskId = stream.frames[0]?.result.id as string;
      expect(first.id).toBe("2");

      restartPostgres();
      await eventually(async () => (postgresReady() ? true : undefined), {
        timeoutMs: 60_000,
        what: "PostgreSQL to accept connections",
      });

      // The same server process answers again once the database is back.
      await eventually(async () => ((await fetch(`${server.url}/healthz`)).status === 200 ? true : undefined), {
        timeoutMs: 15_000,
        what: "healthz to be 200 again",
      });
      // The interrupted task ends exactly once (completed if the robots finished, else failed by the sweep).
      const ended = await eventually(
        async () => {
          const { body } = await rpc(server.a2aUrl, seed.partnerToken, "GetTask", { id: taskId });
          const state = body.result?.status?.state;
          return state && state !== "working" ? state : undefined;
        },
        { timeoutMs: 20_000, what: "the interrupted task to end" },
      );
      expect(["completed", "failed"]).toContain(ended);
      const { rows } = await store.pool.query<{ seq: number; event: string }>(
        "select seq, event from task_events where task_id = $1 order by seq",
        [taskId],
      );
      expect(rows.map((r) => r.seq)).toEqual(rows.map((_, i) => i + 1));
      expect(rows.filter((r) => r.event === "finished")).toHaveLength(1);

      // A new task runs to the end on the same process.
      const res = await post(
        server.a2aUrl,
        envelope("SendStreamingMessage", startParams("Count inventory in aisle 7")),
        seed.partnerToken,
      );
      expect(res.status).toBe(200);
      expect(await res.text()).toContain("event: finished");
    } finally {
      await stopAllServerProcesses();
      await store.drop();
    }
  }, 120_000);
});
