import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../src/config.ts";

// docs/operations.md#configuration is the one table of the server's settings (the README links to it).
// A variable the code reads without a row, a row for one it does not read, or a default written there
// that is not the code's, fails here.
const OPERATIONS = readFileSync(new URL("../../../docs/operations.md", import.meta.url), "utf8");

/** The table's rows under `## Configuration`: [variable, default] with the variable's backticks removed. */
function configurationRows(): Array<{ name: string; names: string[]; defaultCell: string }> {
  const section = OPERATIONS.slice(OPERATIONS.indexOf("\n## Configuration\n"));
  const lines = section.split("\n");
  const first = lines.findIndex((line) => line.startsWith("| `"));
  const rows: Array<{ name: string; names: string[]; defaultCell: string }> = [];
  for (const line of lines.slice(first)) {
    if (!line.startsWith("|")) break;
    const [variable = "", defaultCell = ""] = line.slice(1, -1).split(" | ");
    const names = [...variable.matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((match) => match[1] ?? "");
    rows.push({ name: names[0] ?? "", names, defaultCell: defaultCell.trim() });
  }
  return rows;
}

/** The environment variables `loadConfig` reads, found by handing it an environment that records reads. */
function variablesRead(): Set<string> {
  const read = new Set<string>();
  loadConfig(
    new Proxy({} as NodeJS.ProcessEnv, {
      get(_target, name) {
        if (typeof name === "string") read.add(name);
        return undefined;
      },
    }),
  );
  return read;
}

describe("docs/operations.md#configuration agrees with the code", () => {
  it("has a row for every variable the server reads, and none for a variable it does not read", () => {
    const documented = configurationRows()
      .flatMap((row) => row.names)
      .filter((name) => !name.startsWith("OTEL_")); // the OpenTelemetry SDK's own, read by the SDK
    expect(documented.length).toBeGreaterThan(20);
    expect(new Set(documented).size, "a variable has two rows").toBe(documented.length);
    expect([...documented].sort()).toEqual([...variablesRead()].sort());
  });

  it("writes each literal default as the code's: setting a variable to it changes nothing", () => {
    const defaults = loadConfig({});
    const checked: string[] = [];
    for (const { name, defaultCell } of configurationRows()) {
      const literal = /^`([^`<>]+)`$/.exec(defaultCell)?.[1];
      if (literal === undefined) continue; // unset, or said in words (`http://localhost:<PORT>`, by key type …)
      expect(loadConfig({ [name]: literal }), `${name}'s default is not ${literal}`).toEqual(defaults);
      checked.push(name);
    }
    expect(checked).toEqual(expect.arrayContaining(["PORT", "TASK_LEASE_MS", "PUSH_HORIZON", "DATA_DIR"]));
  });
});
