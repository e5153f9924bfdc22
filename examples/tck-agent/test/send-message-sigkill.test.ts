import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { migrate, openDatabase } from "@a2a-partner/postgres-store";
import { POSTGRES_URL, postgresAvailable } from "@a2a-partner/test-support/postgres";
import { afterAll, describe, expect, it } from "vitest";

/**
 * SendMessage's durable guarantee with real processes: two instances on one PostgreSQL, a client waiting
 * on A, A killed with SIGKILL. The task still ends (B's sweep ends it once A's lease lapses) and the
 * client's retry with the same messageId, sent to B, gets that task: one task, executed once.
 */

const LEASE_MS = 1500;
interface Instance {
  url: string;
  child: ChildProcess;
  /** The ids of the tasks it started executing. */
  runs: string[];
  ran: Promise<string>;
}

async function startInstance(databaseUrl: string): Promise<Instance> {
  const child = spawn(process.execPath, [new URL("./support/instance.ts", import.meta.url).pathname], {
    env: { ...process.env, DATABASE_URL: databaseUrl, LEASE_MS: String(LEASE_MS), WORK_MS: "60000" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const runs: string[] = [];
  let ranOnce: (taskId: string) => void = () => {};
  const ran = new Promise<string>((resolve) => {
    ranOnce = resolve;
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`the instance exited (${code})`)));
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on("line", (line) => {
      if (line.startsWith("http")) resolve(line);
      const run = /^run (\S+)$/.exec(line)?.[1];
      if (run) {
        runs.push(run);
        ranOnce(run);
      }
    });
  });
  return { url, child, runs, ran };
}

function sendMessage(url: string, messageId: string) {
  return fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", "a2a-version": "1.0" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "SendMessage",
      params: { message: { messageId, role: "ROLE_USER", parts: [{ text: "sort the parcels" }] } },
    }),
  });
}

describe.skipIf(!(await postgresAvailable()))("SendMessage while its instance is SIGKILLed", () => {
  const name = `a2a_sigkill_${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
  const admin = new URL(POSTGRES_URL);
  const databaseUrl = Object.assign(new URL(POSTGRES_URL), { pathname: `/${name}` }).toString();
  const instances: Instance[] = [];

  afterAll(async () => {
    for (const { child } of instances) if (child.exitCode === null) child.kill("SIGKILL");
    const db = await openDatabase({ url: admin.toString() });
    await db.query(`drop database if exists ${name} with (force)`);
    await db.close();
  });

  it("the task ends, and the retry on the other instance gets it, executed once", async () => {
    const db = await openDatabase({ url: admin.toString() });
    await db.query(`create database ${name}`);
    await db.close();
    const fresh = await openDatabase({ url: databaseUrl });
    await migrate(fresh);
    await fresh.close();
    const [a, b] = await Promise.all([startInstance(databaseUrl), startInstance(databaseUrl)]);
    instances.push(a as Instance, b as Instance);
    if (!a || !b) throw new Error("two instances");

    const messageId = crypto.randomUUID();
    const waiting = sendMessage(a.url, messageId).then(
      () => "answered",
      () => "connection lost",
    );
    const taskId = await a.ran;
    a.child.kill("SIGKILL");
    expect(await waiting).toBe("connection lost");

    // The retry waits on B until the task has ended: B's sweep ends it once A's lease has lapsed.
    const retried = (await (await sendMessage(b.url, messageId)).json()) as {
      result: { task: { id: string; status: { state: string } } };
    };
    expect(retried.result.task).toMatchObject({ id: taskId, status: { state: "TASK_STATE_FAILED" } });
    const again = (await (await sendMessage(b.url, messageId)).json()) as typeof retried;
    expect(again.result.task.id).toBe(taskId);
    expect(a.runs).toEqual([taskId]);
    expect(b.runs).toEqual([]);
  });
});
