import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { migrate, openDatabase } from "../src/index.js";

describe("openDatabase without a url (embedded PGlite)", () => {
  const parent = mkdtemp(join(tmpdir(), "pglite-data-"));
  afterAll(async () => rm(await parent, { recursive: true, force: true }));

  it("creates the data directory, and what it stores is there after a restart", async () => {
    const dataDir = join(await parent, "nested", "pglite");
    const first = await openDatabase({ dataDir });
    expect(first.kind).toBe("pglite");
    expect((await migrate(first)).applied[0]).toBe("0001_core");
    await first.query("insert into workspaces (slug, name, visibility) values ($1, $2, 'public')", ["demo", "Demo"]);
    await first.close();

    const second = await openDatabase({ dataDir });
    try {
      expect(await migrate(second)).toEqual({ applied: [] });
      const { rows } = await second.query("select slug, name, visibility from workspaces");
      expect(rows).toEqual([{ slug: "demo", name: "Demo", visibility: "public" }]);
    } finally {
      await second.close();
    }
  });
});
