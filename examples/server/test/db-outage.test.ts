import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SeedResult } from "../src/seed.ts";
import { postgresAvailable } from "./support/backends.ts";
import { envelope, post, startParams } from "./support/rpc.ts";
import {
  createPostgresStore,
  eventually,
  openStream,
  type ServerProcess,
  type StreamRecorder,
  seedWithCli,
  startServerProcess,
  stopAllServerProcesses,
  type TimedFrame,
} from "./support/server-process.ts";
import { startTcpProxy, type TcpProxy } from "./support/tcp-proxy.ts";

// A real server process loses its PostgreSQL (a TCP proxy between them is cut: open connections
// reset, new ones refused, then blackholed) and gets it back, without a restart. While it is away requests
// fail fast and cleanly (503 + Retry-After or a bare -32603, never SQL or a stack trace), streams end
// quietly and the process stays up; afterwards everything works again, and the task that was running when
// the database went away is ended once, with a gap-free event log.

/** Slow enough that the task is still running when the database goes away, even on a slow host. */
const STEP_MS = 1_000;
const LEASE_MS = 1500;
/** The server pool's connectionTimeoutMillis (src/server.ts): how long a blackholed connect can hang. */
const CONNECT_TIMEOUT_MS = 5_000;
/** PostgresEventLog re-reads a waiting stream's task this often, NOTIFY or not. */
const RECHECK_MS = 5_000;
/** PgListener's longest pause between two reconnect attempts. */
const LISTEN_BACKOFF_CAP_MS = 5_000;
/** "Fast" for a request while connections are refused: no waiting on any timeout. */
const FAST_MS = 2_000;
/** LISTEN sessions of a server: its own, and its push dispatch thread's. */
const LISTENING = 2;

const TERMINAL = new Set(["completed", "failed", "canceled", "rejected"]);
/** What must never reach a client: SQL, driver or socket messages, stack frames, file paths. */
const LEAK =
  /\b(select|insert|update|delete|from|where)\b|ECONN|EPIPE|terminated|timeout exceeded|connection|pg_|postgres|\bat \S|node_modules|\.[cm]?[jt]s\b/i;

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  ms: number;
}

async function timed(send: () => Promise<Response>): Promise<Answer> {
  const started = performance.now();
  const res = await send();
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, ms: performance.now() - started };
}

/** A JSON-RPC failure a client can act on: 503 + Retry-After, or a bare -32603 body. Nothing leaked. */
function expectCleanRpcFailure(answer: Answer, what: string) {
  const context = `${what}: ${answer.status} ${answer.text}`;
  expect(answer.headers.get("content-type"), context).toMatch(/^application\/json/);
  const body = JSON.parse(answer.text);
  expect(body, context).toMatchObject({ jsonrpc: "2.0", error: { code: -32603 } });
  expect(body.result, context).toBeUndefined();
  expect(answer.text, context).not.toMatch(LEAK);
  if (answer.status === 503) expect(Number(answer.headers.get("retry-after")), context).toBeGreaterThanOrEqual(1);
  else expect([200, 500], context).toContain(answer.status);
}

function expectContiguousIds(frames: TimedFrame[], from = 1) {
  const ids = frames.map((f) => Number(f.id));
  expect(ids).toEqual(ids.map((_, i) => from + i));
}

async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

const isUpdate = (f: TimedFrame) => f.event === "update";

// Under CI postgresAvailable() is always true: the suite runs (and fails if PostgreSQL is unreachable).
describe.skipIf(!(await postgresAvailable()))("a server process whose PostgreSQL goes away and comes back", () => {
  let store: Awaited<ReturnType<typeof createPostgresStore>>;
  let proxy: TcpProxy;
  let seed: SeedResult;
  let server: ServerProcess;
  let exitedEarly: string | undefined;

  // Shared by the phases, in order: the task that runs into the outage, and its original stream.
  let runningTaskId: string;
  let runningStream: StreamRecorder;
  // A start that the outage refused; retried with the same messageId afterwards.
  const refusedMessageId = crypto.randomUUID();

  beforeAll(async () => {
    store = await createPostgresStore();
    seed = await seedWithCli(store.env); // straight to PostgreSQL: only the server goes through the proxy
    const target = new URL(store.url);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    server = await startServerProcess({
      DATABASE_URL: proxy.proxied(store.url),
      ROBOT_STEP_MS: String(STEP_MS),
      TASK_LEASE_MS: String(LEASE_MS),
    });
    void server.exited.then((exit) => {
      exitedEarly = `the server exited (${exit.code ?? exit.signal}):\n${server.log()}`;
    });
  });
  afterAll(async () => {
    await stopAllServerProcesses();
    await proxy?.close();
    await store?.drop();
  });

  const a2a = (method: string, params: unknown) => () =>
    post(server.a2aUrl, envelope(method, params), seed.partnerToken);
  const getTask = (id: string) => timed(a2a("GetTask", { id }));
  const metrics = () =>
    timed(() =>
      fetch(`${server.url}/api/v1/metrics/events/${seed.workspace.slug}`, {
        headers: { authorization: `Bearer ${seed.userToken}` },
      }),
    );
  const healthz = () => timed(() => fetch(`${server.url}/healthz`));

  /**
   * Sessions of this database whose last statement was a LISTEN: the server's listening connection and its
   * push dispatch thread's (PUSH_DISPATCH_THREAD, on by default on PostgreSQL).
   */
  async function listenSessions(): Promise<number> {
    const { rows } = await store.pool.query<{ n: number }>(
      `select count(*)::int as n from pg_stat_activity
        where datname = current_database() and pid <> pg_backend_pid() and query ilike 'listen %'`,
    );
    return rows[0]?.n ?? 0;
  }

  it("while PostgreSQL is away: requests fail fast and cleanly, streams end, the process stays up", async () => {
    // LISTEN is up (waited for first: on a slow host it can take longer than a whole task); then a task in
    // progress, followed by a second stream on the same instance.
    await eventually(async () => ((await listenSessions()) === LISTENING ? true : undefined), {
      timeoutMs: 5_000,
      what: "the server's and its dispatch thread's LISTEN sessions",
    });
    runningStream = await openStream(
      server.a2aUrl,
      seed.partnerToken,
      "SendStreamingMessage",
      startParams("Restock aisle 5", crypto.randomUUID()),
    );
    runningTaskId = (await runningStream.until((f) => f.event === "task")).result.id;
    const follower = await openStream(
      server.a2aUrl,
      seed.partnerToken,
      "SubscribeToTask",
      { id: runningTaskId },
      { "Last-Event-ID": "1" },
    );
    await runningStream.until(isUpdate);
    await follower.until(isUpdate);
    // Requests in flight across the moment the connections are reset: each one either made it, or
    // failed cleanly; none hangs.
    const burst: Promise<Answer>[] = [];
    let cutAt = 0;
    for (let i = 0; i < 10; i++) {
      burst.push(getTask(runningTaskId));
      if (i === 4) {
        proxy.cut("refuse");
        cutAt = performance.now();
      }
      await new Promise((r) => setTimeout(r, 15));
    }
    for (const answer of await Promise.all(burst)) {
      expect(answer.ms).toBeLessThan(FAST_MS);
      if (answer.status === 200 && JSON.parse(answer.text).result) continue;
      expectCleanRpcFailure(answer, "GetTask across the cut");
    }

    // Refused: every method answers at once, with a clean error.
    const refused = await Promise.all([
      getTask(runningTaskId),
      timed(a2a("SendStreamingMessage", startParams("Restock aisle 7", refusedMessageId))),
      timed(a2a("SubscribeToTask", { id: runningTaskId })),
      timed(a2a("CancelTask", { id: runningTaskId })),
    ]);
    for (const [i, answer] of refused.entries()) {
      expect(answer.ms, `request ${i}`).toBeLessThan(FAST_MS);
      expectCleanRpcFailure(answer, `request ${i} while refused`);
      // Authentication needs the database: a 503 the client retries, not a generic error.
      expect(answer.status).toBe(503);
    }

    const health = await healthz();
    expect(health.ms).toBeLessThan(FAST_MS);
    expect(health.status).toBe(503);
    expect(JSON.parse(health.text)).toEqual({ status: "unavailable" });

    const metricsAnswer = await metrics();
    expect(metricsAnswer.ms).toBeLessThan(FAST_MS);
    // As documented in operations.md: a 503 the client may retry, like the A2A endpoint's.
    expect(metricsAnswer.status).toBe(503);
    expect(metricsAnswer.headers.get("retry-after")).toBe("1");
    expect(metricsAnswer.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    expect(metricsAnswer.text).not.toMatch(LEAK);

    // What needs no database still works.
    const card = await fetch(`${server.url}/.well-known/agent-card.json`);
    expect(card.status).toBe(200);

    // Both open streams end on their next re-read of the log: a clean end of the response (the client
    // reattaches), no `finished` (the task did not end), and what they delivered has no gaps.
    const streamEnds: number[] = [];
    for (const stream of [runningStream, follower]) {
      const end = await within(stream.done, RECHECK_MS + 3_000, "the end of an open stream");
      expect(end.error).toBeUndefined();
      streamEnds.push(end.at - cutAt);
      expect(end.at - cutAt).toBeLessThan(RECHECK_MS + 3_000);
      expect(stream.frames.some((f) => f.event === "finished")).toBe(false);
    }
    expectContiguousIds(runningStream.frames);
    expectContiguousIds(follower.frames);

    // The listening session went down with the rest.
    await eventually(async () => ((await listenSessions()) === 0 ? true : undefined), {
      timeoutMs: 3_000,
      what: "the LISTEN session to end",
    });

    // Blackholed: a connect hangs until the pool's connect timeout; requests still end with a 503.
    proxy.cut("blackhole");
    const [blackholed, blackholedHealth] = await Promise.all([getTask(runningTaskId), healthz()]);
    expectCleanRpcFailure(blackholed, "GetTask while blackholed");
    expect(blackholed.status).toBe(503);
    expect(blackholedHealth.status).toBe(503);
    for (const answer of [blackholed, blackholedHealth]) {
      // Slower than a refusal (the proxy really held the connection), never longer than the timeout allows.
      expect(answer.ms).toBeGreaterThan(CONNECT_TIMEOUT_MS - 1_500);
      expect(answer.ms).toBeLessThan(CONNECT_TIMEOUT_MS + 2_500);
    }
    expect(proxy.turnedAway).toBeGreaterThan(0);

    expect(exitedEarly).toBeUndefined();
    const rounded = (values: number[]) => values.map((v) => Math.round(v)).join(", ");
    console.info(
      `db-outage: refused → answers in ${rounded(refused.map((a) => a.ms))} ms, /healthz ${Math.round(health.ms)} ms; ` +
        `blackholed → ${rounded([blackholed.ms, blackholedHealth.ms])} ms; streams ended ${rounded(streamEnds)} ms after the cut`,
    );
  }, 40_000);

  it("once PostgreSQL is back, without a restart: the interrupted task ends once, everything works again", async () => {
    expect(runningTaskId, "the outage phase ran").toBeDefined();
    proxy.restore();
    const restoredAt = performance.now();
    // Watched from the start: LISTEN comes back by itself (reconnect with capped backoff, cut short once
    // the pool reaches the database again).
    const listenBack = eventually(
      async () => ((await listenSessions()) === LISTENING ? performance.now() : undefined),
      {
        timeoutMs: LISTEN_BACKOFF_CAP_MS + 5_000,
        intervalMs: 25,
        what: "the LISTEN session to return",
      },
    );

    await eventually(async () => ((await healthz()).status === 200 ? true : undefined), {
      timeoutMs: 3_000,
      what: "/healthz to answer 200",
    });

    // The task the outage interrupted: its lease ran out while its runner could not write, so the
    // orphan sweep ends it (or, had its runner reached the store first, it completed). Exactly once.
    const task = await eventually(
      async () => {
        const answer = await getTask(runningTaskId);
        const result = answer.status === 200 ? JSON.parse(answer.text).result : undefined;
        return TERMINAL.has(result?.status?.state) ? result : undefined;
      },
      { timeoutMs: LEASE_MS + 4_000, what: "the interrupted task to end" },
    );
    expect(["failed", "completed"]).toContain(task.status.state);

    const { rows: logged } = await store.pool.query<{ seq: number; event: string; step: string | null }>(
      "select seq, event, result->'metadata'->>'step' as step from task_events where task_id = $1 order by seq",
      [runningTaskId],
    );
    expect(logged.map((r) => r.seq)).toEqual(logged.map((_, i) => i + 1));
    // The robots' progress as stored has no step missing: none is stored after one that was lost.
    const steps = logged.flatMap((r) => (r.event === "update" && r.step !== null ? [Number(r.step)] : []));
    expect(steps).toEqual(steps.map((_, i) => i + 1));
    expect(logged.map((r) => r.event).filter((e) => e === "finished")).toEqual(["finished"]);
    expect(logged.at(-1)?.event).toBe("finished");
    const { rows: taskRows } = await store.pool.query<{ last_seq: number; state: string }>(
      "select last_seq, state from tasks where id = $1",
      [runningTaskId],
    );
    expect(taskRows[0]).toEqual({ last_seq: logged.length, state: task.status.state });

    // Its original stream reattaches after the last frame it saw: the rest, each event once, then final.
    const lastSeen = runningStream.frames.at(-1)?.id as string;
    const resumed = await openStream(
      server.a2aUrl,
      seed.partnerToken,
      "SubscribeToTask",
      { id: runningTaskId },
      { "Last-Event-ID": lastSeen },
    );
    expect((await within(resumed.done, 5_000, "the reattached stream to end")).error).toBeUndefined();
    expect(resumed.frames[0]?.event).toBe("task");
    expect(resumed.frames.map((f) => f.event).slice(-2)).toEqual(["finished", "final"]);
    const joined = [...runningStream.frames, ...resumed.frames.slice(1, -1)];
    expectContiguousIds(joined);
    expect(joined).toHaveLength(logged.length);
    expect(resumed.frames.at(-2)?.result).toMatchObject({ final: true, status: { state: task.status.state } });

    // The robots' records follow the task: its workflow execution is not left `running`.
    const execution = await eventually(
      async () => {
        const { rows } = await store.pool.query<{ status: string }>(
          "select status from workflow_executions where task_id = $1",
          [runningTaskId],
        );
        return rows[0] && rows[0].status !== "running" ? rows[0].status : undefined;
      },
      { timeoutMs: 5_000, what: "the interrupted workflow execution to be settled" },
    );
    expect(execution).toBe(task.status.state);

    // The start the outage refused: retried with the same messageId, it is one new task that completes.
    const retried = await openStream(
      server.a2aUrl,
      seed.partnerToken,
      "SendStreamingMessage",
      startParams("Restock aisle 7", refusedMessageId),
    );
    expect((await within(retried.done, 15_000, "the retried task to finish")).error).toBeUndefined();
    expect(retried.frames.map((f) => f.event).slice(-2)).toEqual(["finished", "final"]);
    expect(retried.frames.at(-2)?.result.status.state).toBe("completed");
    expectContiguousIds(retried.frames.slice(0, -1));
    const retriedId = retried.frames[0]?.result.id as string;
    const polled = await getTask(retriedId);
    expect(polled.status).toBe(200);
    expect(JSON.parse(polled.text).result).toMatchObject({ id: retriedId, status: { state: "completed" } });
    const { rows: keyed } = await store.pool.query<{ n: number }>(
      "select count(*)::int as n from tasks where message_id = $1",
      [refusedMessageId],
    );
    expect(keyed[0]?.n).toBe(1);

    const listenBackMs = (await listenBack) - restoredAt;
    // Well before the backoff cap: the first queries that work again prompt the reconnect.
    expect(listenBackMs).toBeLessThan(3_000);

    // …and wakes streams again: a follower on this instance gets each event well within the periodic
    // re-read (which alone would deliver an event up to RECHECK_MS late).
    const live = await openStream(
      server.a2aUrl,
      seed.partnerToken,
      "SendStreamingMessage",
      startParams("Restock aisle 9", crypto.randomUUID()),
    );
    const liveId = (await live.until((f) => f.event === "task")).result.id as string;
    const follower = await openStream(server.a2aUrl, seed.partnerToken, "SubscribeToTask", { id: liveId });
    const [liveEnd, followerEnd] = await within(
      Promise.all([live.done, follower.done]),
      15_000,
      "the live task's streams to end",
    );
    expect(liveEnd.error).toBeUndefined();
    expect(followerEnd.error).toBeUndefined();
    expect(follower.frames.at(-2)?.result.status.state).toBe("completed");
    const { rows: appended } = await store.pool.query<{ seq: number; created_at: Date }>(
      "select seq, created_at from task_events where task_id = $1",
      [liveId],
    );
    const appendedAt = new Map(appended.map((r) => [r.seq, r.created_at.getTime()]));
    const lags = follower.frames
      .filter((f) => f.event === "update" || f.event === "finished")
      .map((f) => performance.timeOrigin + f.at - (appendedAt.get(Number(f.id)) ?? Number.NaN));
    expect(lags.length).toBeGreaterThanOrEqual(4);
    expect(Math.max(...lags), `delivery lags (ms): ${lags.map(Math.round).join(", ")}`).toBeLessThan(1_000);

    // Metrics answer again, and count what the robots wrote (before and after the outage).
    const answer = await metrics();
    expect(answer.status, answer.text).toBe(200);
    const body = JSON.parse(answer.text);
    expect(body.workspace_uuid).toBe(seed.workspace.uuid);
    const { rows: counted } = await store.pool.query<{ telemetry: number; executions: number }>(
      `select (select count(*)::int from telemetry_events where workspace_id = $1) as telemetry,
              (select count(*)::int from workflow_executions where workspace_id = $1) as executions`,
      [seed.workspace.uuid],
    );
    expect(body.telemetry.total).toBe(counted[0]?.telemetry);
    expect(body.workflow_executions.total).toBe(counted[0]?.executions);
    expect(counted[0]?.executions).toBe(3);

    expect(exitedEarly).toBeUndefined();
    console.info(
      `db-outage: LISTEN back ${Math.round(listenBackMs)} ms after recovery; live delivery lags ${lags
        .map(Math.round)
        .join(", ")} ms`,
    );
  }, 40_000);
});
