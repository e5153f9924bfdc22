import { afterAll, beforeAll } from "vitest";
import type { ServerConfig } from "../../src/config.ts";
import { type Backend, createTestDatabase, type TestDatabase } from "./backends.ts";
import { startTestServer, type TestServer } from "./test-server.ts";

export interface SuiteDatabase {
  readonly database: TestDatabase;
}

export interface SuiteServer extends SuiteDatabase {
  readonly server: TestServer;
}

/**
 * A fresh database of `backend`, made before the enclosing describe's tests and dropped after them.
 * Read `database` inside the tests.
 */
export function databasePerSuite(backend: Backend): SuiteDatabase {
  let database: TestDatabase | undefined;
  beforeAll(async () => {
    database = await createTestDatabase(backend);
  });
  afterAll(async () => {
    await database?.drop();
  });
  return {
    get database() {
      return started(database);
    },
  };
}

/**
 * A seeded reference server over a fresh database of `backend` (`databasePerSuite`), started before the
 * enclosing describe's tests and stopped after them. Read `server` and `database` inside the tests.
 */
export function serverPerSuite(backend: Backend, overrides: Partial<ServerConfig> = {}): SuiteServer {
  const suite = databasePerSuite(backend);
  let server: TestServer | undefined;
  // Runs after databasePerSuite's beforeAll (vitest runs a block's beforeAll hooks in the order they were
  // added) and its afterAll before the database is dropped (afterAll hooks run in reverse).
  beforeAll(async () => {
    server = await startTestServer(suite.database.db, overrides);
  });
  afterAll(async () => {
    await server?.stop();
  });
  return {
    get server() {
      return started(server);
    },
    get database() {
      return suite.database;
    },
  };
}

function started<T>(value: T | undefined): T {
  if (value === undefined) throw new Error("the suite's server or database is not ready yet (read it inside a test)");
  return value;
}
