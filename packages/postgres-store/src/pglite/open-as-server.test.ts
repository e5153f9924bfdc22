import { describe, expect, it } from "vitest";
import type { Database } from "../database.js";
import { DataDirectoryLockedError, type LockHolder } from "./data-directory-lock.js";
import { openAsServer } from "./open-as-server.js";

const holder = (owner: string): LockHolder => ({ pid: 4242, owner, hostname: "box", since: "2026-12-06T12:00:00Z" });
const locked = (owner: string) => new DataDirectoryLockedError("/data", "/data/.lock", holder(owner));
const opened = { kind: "pglite" } as unknown as Database;

describe("openAsServer", () => {
  it("waits for a CLI command to let go of the data directory, and says so once", async () => {
    let attempts = 0;
    const waitedFor: string[] = [];
    const db = await openAsServer(
      async () => {
        if (++attempts < 3) throw locked("cli seed");
        return opened;
      },
      { serverOwner: "server", anotherServerHint: "use that one.", onWait: (h) => waitedFor.push(h.owner) },
    );
    expect(db).toBe(opened);
    expect(attempts).toBe(3);
    expect(waitedFor).toEqual(["cli seed"]);
  });

  it("refuses at once when another server holds it, saying what to do", async () => {
    let attempts = 0;
    const opening = openAsServer(
      async () => {
        attempts++;
        throw locked("server");
      },
      { serverOwner: "server", anotherServerHint: "Use that one, or give this one a DATA_DIR of its own." },
    );
    await expect(opening).rejects.toThrow(/in use by server \(pid 4242.*Use that one, or give this one a DATA_DIR/);
    await expect(opening).rejects.toBeInstanceOf(DataDirectoryLockedError);
    expect(attempts).toBe(1);
  });

  it("gives up on a CLI holder after waitMs, with the lock's own error", async () => {
    const opening = openAsServer(
      async () => {
        throw locked("cli generate");
      },
      { serverOwner: "server", anotherServerHint: "unused", waitMs: 150 },
    );
    await expect(opening).rejects.toThrow(/in use by cli generate .*taken over/);
  });
});
