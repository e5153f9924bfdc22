import { readFileSync } from "node:fs";
import { ERROR_CODES } from "@a2a-partner/a2a-core";
import { METHODS, type MethodWire } from "@a2a-partner/a2a-core/protocol";
import { describe, expect, it } from "vitest";

// docs/protocol.md holds the one table of methods and the one table of error codes; the others link to it.
// A method or a code added to the code (or removed from it) without its row fails here.
const PROTOCOL = readFileSync(new URL("../../../docs/protocol.md", import.meta.url), "utf8");

/** The rows (cells trimmed) of the first table after `heading`, its header row and separator left out. */
function firstTable(heading: string): string[][] {
  const start = PROTOCOL.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`docs/protocol.md has no "${heading}"`);
  const lines = PROTOCOL.slice(start + heading.length + 2).split("\n");
  const first = lines.findIndex((line) => line.startsWith("|"));
  const after = lines.slice(first).findIndex((line) => !line.startsWith("|"));
  return lines.slice(first + 2, after < 0 ? undefined : first + after).map((line) =>
    line
      .slice(1, -1)
      .split("|")
      .map((cell) => cell.trim()),
  );
}

describe("docs/protocol.md agrees with the code", () => {
  it("lists every method of METHODS once, with its alias and both dialects, and no other", () => {
    const rows = firstTable("## Methods");
    const documented = new Map(rows.map((cells) => [cells[0], cells]));
    for (const [name, entry] of Object.entries(METHODS) as [string, MethodWire][]) {
      const row = documented.get(`\`${name}\``);
      expect(row, `docs/protocol.md#methods has no row for ${name}`).toBeDefined();
      expect(row?.[1]).toBe(entry.alias ? `\`${entry.alias}\`` : "—");
      // Both dialect columns say something.
      expect(row?.[2]).not.toBe("");
      expect(row?.[3]).not.toBe("");
    }
    expect([...documented.keys()].sort()).toEqual(
      Object.keys(METHODS)
        .map((name) => `\`${name}\``)
        .sort(),
    );
  });

  it("lists every code of ERROR_CODES under Errors, by code, and no other", () => {
    const codes = new Set(
      firstTable("### By code")
        .map((cells) => cells[0] as string)
        .filter((cell) => /^-\d+$/.test(cell)),
    );
    for (const [name, code] of Object.entries(ERROR_CODES)) {
      expect(codes.has(String(code)), `docs/protocol.md#by-code has no row for ${code} (${name})`).toBe(true);
    }
    expect([...codes].sort()).toEqual(Object.values(ERROR_CODES).map(String).sort());
  });
});
