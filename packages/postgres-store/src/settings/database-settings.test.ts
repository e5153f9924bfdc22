import { ConfigError } from "@a2a-partner/a2a-core/node-runtime";
import { describe, expect, it } from "vitest";
import { databaseConnections } from "./database-settings.js";

describe("DATABASE_LISTEN_URL, DATABASE_READ_URL, DATABASE_POOLER", () => {
  const url = "postgres://postgres@pooler:6432/app";
  const direct = "postgres://postgres@db:5432/app";

  it("default to everything on DATABASE_URL, no pooler", () => {
    expect(databaseConnections({ DATABASE_URL: url })).toEqual({
      listenUrl: undefined,
      readUrl: undefined,
      transactionPooler: false,
    });
  });

  it("read a direct URL for LISTEN, a replica, and a transaction pooler", () => {
    const env = { DATABASE_URL: url, DATABASE_LISTEN_URL: direct, DATABASE_READ_URL: "postgresql://r/app" };
    expect(databaseConnections({ ...env, DATABASE_POOLER: "transaction" })).toEqual({
      listenUrl: direct,
      readUrl: "postgresql://r/app",
      transactionPooler: true,
    });
  });

  it.each([
    [{ DATABASE_URL: url, DATABASE_POOLER: "transaction" }, /DATABASE_POOLER=transaction needs DATABASE_LISTEN_URL/],
    [{ DATABASE_URL: url, DATABASE_POOLER: "statement" }, /DATABASE_POOLER must be none or transaction/],
    [
      { DATABASE_URL: url, DATABASE_READ_URL: "mysql://u:secret@r/x" },
      /DATABASE_READ_URL must be a postgres:\/\/.*u:\*\*\*@/,
    ],
    [{ DATABASE_URL: url, DATABASE_LISTEN_URL: "db:5432" }, /DATABASE_LISTEN_URL must be a postgres:\/\//],
    [{ DATABASE_READ_URL: direct }, /DATABASE_READ_URL needs DATABASE_URL/],
  ])("refuse %o (exit 78)", (env, message) => {
    expect(() => databaseConnections(env)).toThrow(ConfigError);
    expect(() => databaseConnections(env)).toThrow(message);
  });
});
