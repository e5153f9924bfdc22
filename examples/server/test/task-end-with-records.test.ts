import { describe, expect, it } from "vitest";
import { type Backend, postgresAvailable } from "./support/backends.ts";
import { envelope, post, readFrames, startParams } from "./support/rpc.ts";
import { serverPerSuite } from "./support/server-per-suite.ts";

// A task's end rides the commit of its run's last records (the fleet returns its outcome without waiting
// for them): a completed task still has every record of its run, and a record the database refuses fails
// the task instead of leaving a completed task with a step missing.

const backends: Backend[] = ["pglite", ...((await postgresAvailable()) ? (["postgres"] as const) : [])];

describe.each(backends)("a task's end and its robots' records on %s", (backend) => {
  const suite = serverPerSuite(backend);

  async function run(text: string): Promise<{ taskId: string; state: string }> {
    const res = await post(
      suite.server.a2aUrl,
      envelope("SendStreamingMessage", startParams(text)),
      suite.server.seeded.partnerToken,
    );
    const frames = await readFrames(res);
    return { taskId: frames[0]?.result.id, state: frames.at(-1)?.result.status.state };
  }

  async function recordsOf(taskId: string) {
    const { rows } = await suite.database.db.query<{ status: string; nodes: number }>(
      `select e.status, (select count(*)::int from workflow_node_executions n where n.workflow_execution_id = e.id) as nodes
         from workflow_executions e where e.task_id = $1`,
      [taskId],
    );
    return rows.map(({ status, nodes }) => ({ status, nodes }));
  }

  it("completes a task with every step's record stored and its execution completed", async () => {
    const { taskId, state } = await run("Restock aisle 5");
    expect(state).toBe("completed");
    // The execution is completed in the commit of the task's end (which depends on it): stored before the
    // stream's last frame was sent, so it is read at once.
    expect(await recordsOf(taskId)).toEqual([{ status: "completed", nodes: 5 }]);
  });

  it("fails the task when the database refuses its last step's record", async () => {
    const { db } = suite.database;
    await db.exec(`
      create function refuse_last_step() returns trigger language plpgsql as $$
      begin
        if new.node_name = 'verify-shelf' then raise exception 'refused' using errcode = 'check_violation'; end if;
        return new;
      end $$;
      create trigger refuse_last_step before insert on workflow_node_executions
        for each row execute function refuse_last_step();`);
    try {
      const { taskId, state } = await run("Restock aisle 5");
      expect(state).toBe("failed");
      const [execution] = await recordsOf(taskId);
      expect(execution?.nodes).toBe(4);
      expect(execution?.status).not.toBe("completed");
    } finally {
      await db.exec("drop trigger refuse_last_step on workflow_node_executions; drop function refuse_last_step()");
    }
  });
});
