import { afterAll, beforeAll } from "vitest";
import type { ServerConfig } from "../../src/config.ts";
import { type Backend, createTestDatabase, type TestDatabase } from "./backends.ts";
import { startTestServer, type TestServer } from "./test-server.ts";

export interface SuiteServer {
  readonly server: TestServer;
  readonly database: TestDatabase;
}

/**
 * A seeded reference server over a fresh database of `backend`, started before the enclosing describe's
 * tests and stopped (its database dropped) after them. Read `server` and `database` inside the tests.
 */
export function serverPerSuite(backend: Backend, overrides: Partial<ServerConfig> = {}): SuiteServer {
  let database: TestDatabase | undefined;
  let server: TestServer | undefined;
  beforeAll(async () => {
    database = await createTestDatabase(backend);
    server = await startTestServer(database.db, overrides);
  });
  afterAll(async () => {
    await server?.stop();
    await database?.drop();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error("the suite's server is not started yet (read it inside a test)");
    return value;
  };
  return {
    get server() {
      return started(server);
    },
    get database() {
      return started(database);
    },
  };
}
