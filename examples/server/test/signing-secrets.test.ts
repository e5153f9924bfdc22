import { CacheInvalidation, type Queryable } from "@a2a-partner/postgres-store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CACHE_CHANGES_CHANNEL } from "../src/app.ts";
import { currentSigningSecret, rotateSigningSecret, signingSecretsOf } from "../src/push/signing-secrets.ts";
import { workspaceSigningSecrets } from "../src/push/workspace-signing-secrets.ts";
import { type Backend, createTestDatabase, postgresAvailable, type TestDatabase } from "./support/backends.ts";

// Under CI=true postgresAvailable() is true, so an unreachable PostgreSQL fails this file instead of skipping.
const backends: Backend[] = ["pglite", ...((await postgresAvailable()) ? (["postgres"] as const) : [])];

describe.each(backends)("the push signing secrets on %s", (backend) => {
  let database: TestDatabase;
  let invalidation: CacheInvalidation;
  beforeAll(async () => {
    database = await createTestDatabase(backend);
    invalidation = new CacheInvalidation(database.db, { channel: CACHE_CHANGES_CHANNEL });
    await invalidation.start();
  });
  afterAll(async () => {
    await invalidation?.close();
    await database?.drop();
  });

  async function newWorkspace(): Promise<string> {
    const slug = `ws-${Math.random().toString(36).slice(2, 10)}`;
    const { rows } = await database.db.query<{ id: string }>(
      "insert into workspaces (slug, name, visibility) values ($1, $1, 'private') returning id",
      [slug],
    );
    return rows[0]?.id as string;
  }

  /** The database with a count of the statements that read the secrets table. */
  function counting(): { db: Queryable; reads: () => number } {
    let reads = 0;
    const db: Queryable = {
      query: ((text: string, params?: readonly unknown[]) => {
        if (/from push_signing_secrets/.test(text)) reads++;
        return database.db.query(text, params);
      }) as Queryable["query"],
      exec: (text) => database.db.exec(text),
    };
    return { db, reads: () => reads };
  }

  it("gives a workspace one current secret, whoever asks first and however many at once", async () => {
    const workspace = await newWorkspace();
    const answers = await Promise.all([1, 2, 3, 4].map(() => currentSigningSecret(database.db, workspace)));
    expect(new Set(answers.map((a) => a.secret)).size).toBe(1);
    expect(answers.filter((a) => a.created)).toHaveLength(1);
    expect(answers[0]?.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(answers[0]?.secret.slice(6) ?? "", "base64")).toHaveLength(32);
  });

  it("signs with the new and the old secret during the grace, the new one first, and the new one alone after", async () => {
    const workspace = await newWorkspace();
    const first = await currentSigningSecret(database.db, workspace);
    const second = await rotateSigningSecret(database.db, workspace, 3600);
    expect((await signingSecretsOf(database.db, workspace)).map((s) => s.secret)).toEqual([
      second.secret,
      first.secret,
    ]);
    // A grace of 0 retires the replaced secret at once (a secret that leaked).
    const third = await rotateSigningSecret(database.db, workspace, 0);
    expect((await signingSecretsOf(database.db, workspace)).map((s) => s.secret)).toEqual([third.secret, first.secret]);
  });

  it("answers deliveries from memory, sees a rotation at once, and drops a retiring secret at its time", async () => {
    const workspace = await newWorkspace();
    const { db, reads } = counting();
    // A long maximum age: what this test sees comes from the change announcements and retires_at alone.
    const secretsOf = workspaceSigningSecrets(db, invalidation, { maxAgeMs: 600_000 });

    // None yet: the first delivery creates the workspace's secret.
    const [created] = await secretsOf(workspace);
    expect(await signingSecretsOf(database.db, workspace)).toMatchObject([{ secret: created }]);
    // Its creation is announced too (and empties the cache once); from then on deliveries cost no read.
    await expect
      .poll(async () => {
        const before = reads();
        await secretsOf(workspace);
        return reads() - before;
      })
      .toBe(0);
    const steady = reads();
    await Promise.all([secretsOf(workspace), secretsOf(workspace), secretsOf(workspace)]);
    expect(reads()).toBe(steady);

    const rotated = await rotateSigningSecret(database.db, workspace, 2);
    await expect.poll(() => secretsOf(workspace), { timeout: 5_000, interval: 20 }).toEqual([rotated.secret, created]);
    // The replaced secret stops signing when its grace ends, though no statement announces that moment.
    await expect.poll(() => secretsOf(workspace), { timeout: 6_000, interval: 100 }).toEqual([rotated.secret]);
  });

  it("reads the database on every delivery when it has no change announcements to trust", async () => {
    const workspace = await newWorkspace();
    const { db, reads } = counting();
    const secretsOf = workspaceSigningSecrets(db, undefined);
    await secretsOf(workspace);
    const before = reads();
    const rotated = await rotateSigningSecret(database.db, workspace, 60);
    expect((await secretsOf(workspace))[0]).toBe(rotated.secret);
    expect(reads()).toBeGreaterThan(before);
  });
});
