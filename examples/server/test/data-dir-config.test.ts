import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EXIT_CODES } from "@a2a-partner/a2a-core/node-runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "./support/server-process.ts";

// DATA_DIR is the operator's setting: one that cannot become the embedded store's directory is refused as
// configuration (exit 78, naming the setting), for the server and for the commands that open the store.
describe("DATA_DIR that cannot be a directory", () => {
  let parent: string;
  let file: string;
  beforeAll(async () => {
    parent = await mkdtemp(join(tmpdir(), "a2a-data-dir-"));
    file = join(parent, "not-a-directory");
    await writeFile(file, "a file where the data directory should be\n");
  });
  afterAll(async () => {
    await rm(parent, { recursive: true, force: true });
  });

  it("refuses DATA_DIR naming a file: exit 78 and which setting to change", async () => {
    const run = await runCli(["serve"], { DATA_DIR: file, PORT: "0" });
    expect(run.code).toBe(EXIT_CODES.config);
    expect(run.stderr).toContain(`configuration refused: DATA_DIR=${file} exists and is not a directory`);
  });

  it("refuses DATA_DIR under a file for a command that opens the store", async () => {
    const run = await runCli(["seed"], { DATA_DIR: join(file, "pglite") });
    expect(run.code).toBe(EXIT_CODES.config);
    expect(run.stderr).toContain(`DATA_DIR=${join(file, "pglite")} lies under a file, not a directory`);
  });
});
