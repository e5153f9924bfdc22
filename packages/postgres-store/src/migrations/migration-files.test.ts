import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  checksum,
  loadMigrations,
  type Migration,
  orderMigrations,
  parseMigrationFileName,
} from "./migration-files.js";

describe("parseMigrationFileName", () => {
  it("reads the version and name of NNNN_name.sql", () => {
    expect(parseMigrationFileName("0001_core.sql")).toEqual({ version: 1, name: "0001_core" });
    expect(parseMigrationFileName("0012_metrics-rollups.sql")).toEqual({ version: 12, name: "0012_metrics-rollups" });
  });

  it("ignores files that are not migrations", () => {
    for (const name of ["README.md", "core.sql", "0001_core.sql.bak", "0001_.sql", "0001 core.sql", "x0001_a.sql"]) {
      expect(parseMigrationFileName(name)).toBeUndefined();
    }
  });
});

describe("orderMigrations", () => {
  const m = (version: number, name: string): Migration => ({ version, name, sql: "", checksum: "" });

  it("orders by number, not by text", () => {
    expect(orderMigrations([m(10, "10_b"), m(2, "2_a")]).map((x) => x.name)).toEqual(["2_a", "10_b"]);
  });

  it("refuses two files with one version", () => {
    expect(() => orderMigrations([m(1, "0001_a"), m(1, "001_b")])).toThrow(/share version 1/);
  });
});

describe("loadMigrations", () => {
  it("reads the .sql files of a folder in order, with checksums", async () => {
    const dir = await mkdtemp(join(tmpdir(), "migrations-"));
    try {
      await writeFile(join(dir, "0002_two.sql"), "select 2;");
      await writeFile(join(dir, "0001_one.sql"), "select 1;");
      await writeFile(join(dir, "notes.txt"), "not sql");
      const loaded = await loadMigrations(dir);
      expect(loaded).toEqual([
        { version: 1, name: "0001_one", sql: "select 1;", checksum: checksum("select 1;") },
        { version: 2, name: "0002_two", sql: "select 2;", checksum: checksum("select 2;") },
      ]);
      expect(checksum("select 1;")).not.toBe(checksum("select 1; "));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
