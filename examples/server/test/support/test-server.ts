import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { TaskExecutor } from "@a2a-partner/a2a-core";
import { createHttpServer } from "@a2a-partner/a2a-core/node-runtime";
import type { Database } from "@a2a-partner/postgres-store";
import { pino } from "pino";
import { createApp, type ServerApp } from "../../src/app.ts";
import { createToken } from "../../src/auth/tokens.ts";
import { loadConfig, type ServerConfig } from "../../src/config.ts";
import { type SeedResult, seed } from "../../src/seed.ts";

export interface TestServer {
  url: string;
  a2aUrl: string;
  app: ServerApp;
  server: Server;
  seeded: SeedResult;
  /** A partner token of a second workspace, for tenancy tests. */
  otherPartnerToken: string;
  stop(): Promise<void>;
}

/** The real Express app on an ephemeral port over the given database, seeded with the demo data. */
export async function startTestServer(
  db: Database,
  overrides: Partial<ServerConfig> = {},
  executor?: TaskExecutor,
): Promise<TestServer> {
  // The metrics rate limit is off unless a test is about it: suites query far faster than a caller would.
  const config: ServerConfig = {
    ...loadConfig({}),
    robotStepMs: 5,
    shutdownGraceMs: 100,
    metricsRateLimitPerSecond: 0,
    ...overrides,
  };
  const app = createApp({ db, config, logger: pino({ level: "silent" }), ...(executor ? { executor } : {}) });
  const server = createHttpServer(app.listener, config);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  const seeded = await seed(db);
  const other = await db.query<{ id: string }>(
    `insert into workspaces (slug, name, visibility) values ('other-co', 'Other Co', 'private')
     on conflict (slug) do update set slug = excluded.slug returning id`,
  );
  await db.query(
    `insert into environments (workspace_id, store_id, name) values ($1, 'store-001', 'Other store')
     on conflict (workspace_id, store_id) do nothing`,
    [other.rows[0]?.id],
  );
  const otherPartnerToken = await createToken(db, { kind: "partner", workspaceId: other.rows[0]?.id as string });
  return {
    url,
    a2aUrl: `${url}/api/v1/a2a`,
    app,
    server,
    seeded,
    otherPartnerToken,
    async stop() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      await app.close();
      server.closeAllConnections();
      await closed;
    },
  };
}
