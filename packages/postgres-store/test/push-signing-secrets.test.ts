import { randomUUID } from "node:crypto";
import { postgresAvailable } from "@a2a-partner/test-support/postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CacheInvalidation,
  currentSigningSecret,
  PUSH_SIGNING_SECRETS_TABLE_SQL,
  type Queryable,
  rotateSigningSecret,
  signingSecretsOf,
  workspaceSigningSecrets,
} from "../src/index.js";
import { cacheChangeTriggerSql } from "./support/cache-change-trigger.js";
import { type MigratedBackend, openMigratedBackend } from "./support/migrated-backend.js";

// Under CI=true postgresAvailable() is true, so an unreachable PostgreSQL fails this file instead of skipping.
const backends = ["pglite", ...((await postgresAvailable()) ? (["postgres"] as const) : [])] as const;

// A channel of this file's own: NOTIFY is database-wide, and other suites share the PostgreSQL server.
const channel = `signing_secrets_${randomUUID().replaceAll("-", "").slice(0, 16)}`;

/** The table as an embedder creates it: the exported DDL, and the trigger the README asks for. */
const EMBEDDER_MIGRATION = `${PUSH_SIGNING_SECRETS_TABLE_SQL}${cacheChangeTriggerSql("push_signing_secrets", channel)}`;

describe.each(backends)("the push signing secrets on %s", (backend) => {
  let database: MigratedBackend;
  let invalidation: CacheInvalidation;
  beforeAll(async () => {
    database = await openMigratedBackend(backend, "signing_secrets");
    await database.db.exec(EMBEDDER_MIGRATION);
    invalidation = new CacheInvalidation(database.db, { channel });
    await invalidation.start();
  });
  afterAll(async () => {
    await invalidation?.close();
    await database?.drop();
  });

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
    const workspace = randomUUID();
    const answers = await Promise.all([1, 2, 3, 4].map(() => currentSigningSecret(database.db, workspace)));
    expect(new Set(answers.map((a) => a.secret)).size).toBe(1);
    expect(answers.filter((a) => a.created)).toHaveLength(1);
    expect(answers[0]?.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(answers[0]?.secret.slice(6) ?? "", "base64")).toHaveLength(32);
  });

  it("signs with the new and the old secret during the grace, the new one first, and the new one alone after", async () => {
    const workspace = randomUUID();
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
    const workspace = randomUUID();
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
    const workspace = randomUUID();
    const { db, reads } = counting();
    const secretsOf = workspaceSigningSecrets(db, undefined);
    await secretsOf(workspace);
    const before = reads();
    const rotated = await rotateSigningSecret(database.db, workspace, 60);
    expect((await secretsOf(workspace))[0]).toBe(rotated.secret);
    expect(reads()).toBeGreaterThan(before);
  });
});
