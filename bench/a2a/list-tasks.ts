/**
 * The `tasks` table under ListTasks' indexes (migration a2a-store/0003), in process on an in-memory PGlite:
 * how many task-row updates of running tasks were heap-only and how large the table's indexes grew over a
 * loop of tasks (each started, four status updates, its end), then what ListTasks pages cost in one
 * workspace holding many ended tasks (the first page and a deep one, medians of five). See the ListTasks
 * section of bench/NOTES.md.
 *
 *   pnpm build && node bench/a2a/list-tasks.ts                    # 1,200 tasks, then 100,000 ended ones
 *   node bench/a2a/list-tasks.ts --tasks 5000 --ended 500000 --running 200
 *
 * Investigation tool, not part of the bench run.
 */
import { randomUUID } from "node:crypto";
import { parseArgs } from "node:util";
import { storeFixtures } from "@a2a-partner/a2a-core/testing";
import { store } from "../metrics/setup.ts";
import { median } from "../metrics/stats.ts";

const { values: args } = parseArgs({
  options: {
    tasks: { type: "string", default: "1200" },
    ended: { type: "string", default: "100000" },
    running: { type: "string", default: "50" },
  },
});

const db = await store.openDatabase({ dataDir: "memory://", autovacuum: false });
await store.migrate(db);
const stores = store.createPostgresStores(db);
// The store suites' own inputs: tasks, status updates and endings on a clock of their own.
const { newTask, update, finished } = storeFixtures();

// 1. Task-row updates while tasks run.
const loopWorkspace = randomUUID();
for (let i = 0; i < Number(args.tasks); i++) {
  const { task } = await stores.tasks.create(newTask(loopWorkspace));
  for (let step = 1; step <= 4; step++) await stores.events.append(task.id, update(task, step * 25));
  await stores.events.append(task.id, finished(task));
}
await db.query("select pg_stat_force_next_flush()");
const { rows: updates } = await db.query<{ updates: number; hot: number; index_kib: number }>(
  `select n_tup_upd::int as updates, n_tup_hot_upd::int as hot, (pg_indexes_size('tasks') / 1024)::int as index_kib
     from pg_stat_user_tables where relid = 'tasks'::regclass`,
);
const u = updates[0];
console.log(
  `${args.tasks} tasks (started, 4 updates, ended): ${u?.hot} of ${u?.updates} task-row updates heap-only, ` +
    `indexes of tasks ${u?.index_kib} KiB`,
);

// 2. ListTasks in a workspace with many ended tasks and a few running ones.
const workspaceId = randomUUID();
await db.query(
  `insert into tasks (id, workspace_id, context_id, snapshot, state, terminal, last_seq, created_at, updated_at)
   select id, $1::uuid, 'c', jsonb_build_object('kind', 'task', 'id', id, 'contextId', 'c',
            'status', jsonb_build_object('state', 'completed', 'timestamp',
              to_char((timestamptz '2025-01-01' + g * interval '1 second') at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')),
            'history', '[]'::jsonb, 'artifacts', '[]'::jsonb, 'metadata', jsonb_build_object('storeId', 'store-001')),
          'completed', true, 2, now(), now()
     from (select gen_random_uuid() as id, g from generate_series(1, $2::int) g) as t`,
  [workspaceId, Number(args.ended)],
);
for (let i = 0; i < Number(args.running); i++) await stores.tasks.create(newTask(workspaceId));
await db.exec("vacuum analyze tasks");

async function timed(query: Parameters<NonNullable<typeof stores.tasks.list>>[1]): Promise<string> {
  const samples: number[] = [];
  for (let i = 0; i < 6; i++) {
    const started = performance.now();
    await stores.tasks.list?.(workspaceId, query);
    if (i > 0) samples.push(performance.now() - started);
  }
  return median(samples).toFixed(2);
}
let page = await stores.tasks.list?.(workspaceId, { pageSize: 50 });
for (let i = 0; i < 99 && page?.next; i++)
  page = await stores.tasks.list?.(workspaceId, { pageSize: 50, after: page.next });
console.log(
  `ListTasks, ${args.ended} ended and ${args.running} running tasks in one workspace, pages of 50: ` +
    `page 1 ${await timed({ pageSize: 50 })} ms, page 101 ${await timed({ pageSize: 50, ...(page?.next ? { after: page.next } : {}) })} ms ` +
    `(totalSize ${page?.totalSize})`,
);
await stores.events.close();
await db.close();
