import { afterAll, beforeAll } from "vitest";
import type { ServerConfig } from "../../src/config.ts";
import { createTestDatabase, type TestDatabase } from "./backends.ts";
import { startForwarder } from "./forwarder.ts";
import { startTestServer, type TestServer } from "./test-server.ts";

/** A reference server on PGlite behind a forwarder, whose URL is the server's public one, and its partner token. */
export interface FrontedServer {
  database: TestDatabase;
  server: TestServer;
  front: Awaited<ReturnType<typeof startForwarder>>;
  token: string;
}

/**
 * For a describe block whose client must reach the server at its public URL (the agent card names it):
 * started before its tests (the fields are filled then), stopped after them.
 */
export function frontedServerPerSuite(overrides: Partial<ServerConfig> = {}): FrontedServer {
  const bed = {} as FrontedServer;
  beforeAll(async () => {
    bed.database = await createTestDatabase("pglite");
    bed.front = await startForwarder();
    bed.server = await startTestServer(bed.database.db, { publicUrl: bed.front.url, ...overrides });
    bed.front.setTarget(Number(new URL(bed.server.url).port));
    bed.token = bed.server.seeded.partnerToken;
  });
  afterAll(async () => {
    await bed.server?.stop();
    await bed.front?.close();
    await bed.database?.drop();
  });
  return bed;
}
