import { ERROR_CODES } from "@a2a-partner/a2a-core";
import { EXIT_CODES } from "@a2a-partner/a2a-core/node-runtime";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { pruneTasks } from "../src/retention/prune-tasks.ts";
import { startTaskPruner } from "../src/retention/task-pruner.ts";
import { envelope, post, readFrames, rpc, startParams } from "./support/rpc.ts";
import { serverPerSuite } from "./support/server-per-suite.ts";
import { pgliteStorePerTest, runCli } from "./support/server-process.ts";
import { startTestServer } from "./support/test-server.ts";

const DAY_MS = 24 * 60 * 60 * 1000;

describe("retention: ended tasks pruned, and what a client then gets", () => {
  const suite = serverPerSuite("pglite");
  const token = () => suite.server.seeded.partnerToken;

  /** A task run to its end through the API, with an idempotency key; its id. */
  async function endedTask(messageId = crypto.randomUUID()): Promise<string> {
    const res = await post(
      suite.server.a2aUrl,
      envelope("SendStreamingMessage", startParams("Restock", messageId)),
      token(),
    );
    const frames = await readFrames(res);
    expect(frames.at(-1)?.result.status.state).toBe("completed");
    return frames[0]?.result.id as string;
  }

  /** As if the task had ended `days` ago (its end's status timestamp, as ListTasks and the prune read it). */
  async function age(taskId: string, days: number): Promise<void> {
    await suite.database.db.query(
      `update tasks set status_at = now() - $2::double precision * interval '1 day',
                        final_status_at = now() - $2::double precision * interval '1 day' where id = $1`,
      [taskId, days],
    );
  }

  async function taskRows(taskId: string): Promise<number> {
    const { rows } = await suite.database.db.query<{ n: number }>(
      "select count(*)::int as n from tasks where id = $1",
      [taskId],
    );
    return rows[0]?.n ?? -1;
  }

  it("prunes the tasks that ended before the cutoff: GetTask and a reattach answer -32001, the rest stays", async () => {
    const messageId = crypto.randomUUID();
    const old = await endedTask(messageId);
    const recent = await endedTask();
    await age(old, 40);
    await age(recent, 2);

    expect(await pruneTasks(suite.database.db, { endedBefore: "30d", dryRun: true })).toMatchObject({
      tasks: 1,
      dryRun: true,
    });
    expect((await rpc(suite.server.a2aUrl, token(), "GetTask", { id: old })).body.result.id).toBe(old);
    const pruned = await pruneTasks(suite.database.db, { endedBefore: "30d" });
    expect(pruned.tasks).toBe(1);
    expect(pruned.events).toBeGreaterThanOrEqual(2);

    // Another instance (this one may still hold the ended task in its bounded in-memory cache of ended
    // tasks, which a2a-core serves GetTask from: docs/operations.md, "Retention").
    const other = await startTestServer(suite.database.db);
    try {
      const otherToken = other.seeded.partnerToken;
      for (const method of ["GetTask", "CancelTask", "tasks/resubscribe", "SubscribeToTask"]) {
        const { body } = await rpc(other.a2aUrl, otherToken, method, { id: old });
        expect(body.error?.code, method).toBe(ERROR_CODES.TaskNotFound);
      }
      expect((await rpc(other.a2aUrl, otherToken, "GetTask", { id: recent })).body.result.id).toBe(recent);
      const listed = await rpc(other.a2aUrl, otherToken, "ListTasks", {});
      const ids = (listed.body.result.tasks as { id: string }[]).map((task) => task.id);
      expect(ids).toContain(recent);
      expect(ids).not.toContain(old);
    } finally {
      await other.stop();
    }
  });

  it("refuses a cutoff less than an hour ago, or one it cannot read, and deletes nothing", async () => {
    const id = await endedTask();
    for (const endedBefore of ["10m", "59m", new Date().toISOString(), "yesterday", "2026-01-01", "30"]) {
      await expect(pruneTasks(suite.database.db, { endedBefore }), endedBefore).rejects.toThrow(/--ended-before/);
    }
    expect((await rpc(suite.server.a2aUrl, token(), "GetTask", { id })).body.result.id).toBe(id);
  });

  it("prunes in the background once TASK_RETENTION is set, and stops when told", async () => {
    const id = await endedTask();
    await age(id, 3);
    const pruner = startTaskPruner(suite.database.db, 2 * DAY_MS, pino({ level: "silent" }), 50);
    try {
      await expect.poll(async () => taskRows(id)).toBe(0);
    } finally {
      await pruner.stop();
    }
  });
});

describe("pnpm cli prune", () => {
  const freshStore = pgliteStorePerTest();

  it("prints what it pruned as JSON, and refuses a cutoff under an hour with exit 2", async () => {
    const store = await freshStore();
    const done = await runCli(["prune", "--ended-before", "30d", "--dry-run"], store.env);
    expect(done.code, done.stderr).toBe(EXIT_CODES.ok);
    expect(JSON.parse(done.stdout)).toMatchObject({ tasks: 0, events: 0, batches: 0, dryRun: true });
    const refused = await runCli(["prune", "--ended-before", "5m"], store.env);
    expect(refused.code).toBe(EXIT_CODES.usage);
    expect(refused.stderr).toMatch(/at least 1h ago/);
    const help = await runCli(["prune", "--help"], {});
    expect(help.stdout).toMatch(/prune --ended-before <duration\|ISO-8601> \[--dry-run\]/);
  });
});
