import { UsageError } from "@a2a-partner/a2a-core/node-runtime";
import type { Database } from "@a2a-partner/postgres-store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWorkspaceToken, listTokens, revokeToken } from "../src/admin/token-operations.ts";
import { seed } from "../src/seed.ts";
import { createTestDatabase, type TestDatabase } from "./support/backends.ts";

// The admin functions the CLI and the control socket share, on an embedded store of the file's own.
describe("token list and token revoke", () => {
  let test: TestDatabase;
  let db: Database;
  beforeAll(async () => {
    test = await createTestDatabase("pglite");
    db = test.db;
    await seed(db);
    await db.query("insert into workspaces (slug, name, visibility) values ('acme', 'Acme', 'private')");
  });
  afterAll(() => test?.drop());

  const live = async (id: string) =>
    (await db.query<{ revoked_at: Date | null }>("select revoked_at from api_tokens where id = $1", [id])).rows[0]
      ?.revoked_at === null;

  it("lists a user token under every workspace its user is an active member of", async () => {
    const user = await createWorkspaceToken(db, { workspace: "acme", kind: "user", user: "ops@acme.example" });
    const partner = await createWorkspaceToken(db, { workspace: "acme", kind: "partner" });

    const acme = await listTokens(db, { workspace: "acme" });
    expect(acme.map((row) => row.id).sort()).toEqual([user.id, partner.id].sort());
    expect(acme.find((row) => row.id === user.id)).toMatchObject({
      kind: "user",
      user: "ops@acme.example",
      workspace: null,
      workspaces: ["acme"],
    });
    expect(acme.find((row) => row.id === partner.id)).not.toHaveProperty("workspaces");
    // Not under a workspace the user does not belong to.
    expect((await listTokens(db, { workspace: "demo" })).map((row) => row.id)).not.toContain(user.id);

    // A deactivated membership takes the token out of that workspace's list.
    await db.query(
      `update memberships set status = 'inactive'
        where user_id = (select id from users where email = 'ops@acme.example')`,
    );
    expect((await listTokens(db, { workspace: "acme" })).map((row) => row.id)).toEqual([partner.id]);
  });

  it("revokes by a unique prefix of the id, as people type git hashes", async () => {
    const { id } = await createWorkspaceToken(db, { workspace: "demo", kind: "partner" });
    await expect(revokeToken(db, id.slice(0, 8))).resolves.toEqual({ revoked: id });
    expect(await live(id)).toBe(false);
  });

  it("refuses a prefix that matches several live tokens, listing them, and revokes none", async () => {
    const a = await createWorkspaceToken(db, { workspace: "demo", kind: "partner" });
    const b = await createWorkspaceToken(db, { workspace: "acme", kind: "partner" });
    // Two ids that share their first 8 characters, as happens once a store has many tokens.
    const idA = "3943c801-0000-4000-8000-00000000000a";
    const idB = "3943c801-0000-4000-8000-00000000000b";
    await db.query("update api_tokens set id = $1 where id = $2", [idA, a.id]);
    await db.query("update api_tokens set id = $1 where id = $2", [idB, b.id]);

    const refused = revokeToken(db, "3943c801");
    await expect(refused).rejects.toBeInstanceOf(UsageError);
    await expect(refused).rejects.toThrow(/2 live tokens match 3943c801/);
    await expect(refused).rejects.toThrow(new RegExp(`${idA} \\(partner, demo\\)[\\s\\S]*${idB} \\(partner, acme\\)`));
    expect(await live(idA)).toBe(true);
    expect(await live(idB)).toBe(true);

    // One more character makes it unique.
    await expect(revokeToken(db, "3943c801-0000-4000-8000-00000000000b")).resolves.toEqual({ revoked: idB });
    await expect(revokeToken(db, "3943c801-0")).resolves.toEqual({ revoked: idA });
  });

  it("still revokes by a hash prefix, and says what it looked for when nothing matches", async () => {
    const { id } = await createWorkspaceToken(db, { workspace: "demo", kind: "partner" });
    const hash = (await listTokens(db)).find((row) => row.id === id)?.hash as string;
    await expect(revokeToken(db, hash)).resolves.toEqual({ revoked: id });
    await expect(revokeToken(db, "ffffffffffff")).rejects.toThrow(
      "no live token whose id or hash starts with ffffffffffff",
    );
    await expect(revokeToken(db, "abc")).rejects.toThrow(/at least 8 characters/);
    // Eight characters that no id or hash can start with: nothing matches, it was long enough.
    await expect(revokeToken(db, "zzzzzzzz")).rejects.toThrow("no live token whose id or hash starts with zzzzzzzz");
  });
});
