import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { storeFixtures } from "@a2a-partner/a2a-core/testing";
import { afterAll, describe, expect, it } from "vitest";
import { createPostgresStores, migrate, openDatabase } from "../src/index.js";

describe("openDatabase without a url (embedded PGlite)", () => {
  const parent = mkdtemp(join(tmpdir(), "pglite-data-"));
  afterAll(async () => rm(await parent, { recursive: true, force: true }));
  const { newTask } = storeFixtures();
  const workspaceId = randomUUID();

  it("creates the data directory, and what it stores is there after a restart", async () => {
    const dataDir = join(await parent, "nested", "pglite");
    const first = await openDatabase({ dataDir });
    expect(first.kind).toBe("pglite");
    expect((await migrate(first)).applied[0]).toBe("a2a-store/0001_tasks");
    const firstStores = createPostgresStores(first);
    const stored = await firstStores.tasks.create(newTask(workspaceId));
    await firstStores.events.close();
    await first.close();

    const second = await openDatabase({ dataDir });
    try {
      expect(await migrate(second)).toEqual({ applied: [], adopted: [] });
      const secondStores = createPostgresStores(second);
      expect(await secondStores.tasks.get(workspaceId, stored.task.id)).toEqual(stored);
      await secondStores.events.close();
    } finally {
      await second.close();
    }
  });
});
