import { readFileSync } from "node:fs";
import { storeFixtures } from "@a2a-partner/a2a-core/testing";
import { POSTGRES_URL, postgresAvailable } from "@a2a-partner/test-support/postgres";
import { describe, expect, it } from "vitest";
import { createPostgresStores, openDatabase } from "../src/index.js";
import { READ_EVENTS_AFTER } from "../src/stores/postgres-event-log.js";
import { START_TASK } from "../src/tasks/insert-task.js";
import { openMigratedBackend } from "./support/migrated-backend.js";

const reachable = await postgresAvailable();
const MIGRATION = new URL("../migrations/0009_pooled_statements.sql", import.meta.url);

// Behind a transaction pooler a start calls `a2a_start_task` and a read of events `a2a_read_events`,
// migration 0009's PL/pgSQL copies of the two statements (their plans kept for the server session);
// direct connections send the statements themselves, named.
describe("hot statements as database functions, behind a transaction pooler", () => {
  it("are the store's statements, character for character (a changed statement needs a migration)", () => {
    const migration = readFileSync(MIGRATION, "utf8");
    const bodies = [...migration.matchAll(/return query\n([\s\S]*?);\nend\n\$fn\$;/g)].map((match) => match[1]);
    expect(bodies).toEqual([START_TASK, READ_EVENTS_AFTER].map((sql) => sql.trim().replace(/\$(\d+)/g, "p$1")));
  });

  it.runIf(reachable)("start a task and read its events, a retry getting the same task", async () => {
    const backend = await openMigratedBackend("postgres", "start_function");
    const pooled = await openDatabase({
      url: POSTGRES_URL,
      listenUrl: POSTGRES_URL,
      transactionPooler: true,
      pool: { max: 1, options: `-c search_path=${backend.schema}` },
    });
    try {
      const { newTask } = storeFixtures();
      const workspace = crypto.randomUUID();
      const stores = createPostgresStores(pooled);
      const messageId = crypto.randomUUID();
      const input = newTask(workspace);
      const created = await stores.idempotency.createOrGet(messageId, input);
      expect(created).toMatchObject({ created: true, record: { task: { id: input.task.id } } });
      // The same messageId again: the original task, not a second one.
      const again = await stores.idempotency.createOrGet(messageId, newTask(workspace));
      expect(again).toMatchObject({ created: false, record: { task: { id: input.task.id } } });
      expect((await stores.tasks.get(workspace, input.task.id))?.task).toEqual(created.record.task);
      const [first] = await stores.events.readAfter(input.task.id, 0);
      expect(first).toMatchObject({ seq: 1, event: "task", result: { task: { id: input.task.id } } });
      expect(await stores.events.readAfter(input.task.id, 1)).toEqual([]);

      // Without the functions a pooled start or read fails, and a direct (named) one does not need them.
      await backend.db.exec("drop function a2a_start_task; drop function a2a_read_events");
      await expect(stores.tasks.create(newTask(workspace))).rejects.toThrow(/a2a_start_task/);
      await expect(stores.events.readAfter(input.task.id, 0)).rejects.toThrow(/a2a_read_events/);
      const direct = newTask(workspace);
      await expect(createPostgresStores(backend.db).tasks.create(direct)).resolves.toMatchObject({
        task: { id: direct.task.id },
      });
    } finally {
      await pooled.close();
      await backend.drop();
    }
  });
});
