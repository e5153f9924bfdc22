import { describe, expect, it } from "vitest";
import { parseCliArgs } from "./args.js";

const env = { A2A_URL: "http://localhost:8080", A2A_TOKEN: "a2a_p_env" };

describe("parseCliArgs", () => {
  it("joins the positionals into the task text and takes url and token from the environment", () => {
    expect(parseCliArgs(["Restock", "aisle", "5", "--store", "store-001"], env)).toEqual({
      ok: true,
      command: {
        kind: "run",
        text: "Restock aisle 5",
        storeId: "store-001",
        baseUrl: "http://localhost:8080",
        token: "a2a_p_env",
        json: false,
        legacyMethods: false,
      },
    });
  });

  it("prefers flags over the environment and reads every option", () => {
    const parsed = parseCliArgs(
      [
        "Restock aisle 5",
        "-s",
        "store-2",
        "-u",
        "https://x.test",
        "-t",
        "tok",
        "-m",
        "order-9",
        "--json",
        "--legacy-methods",
        "--max-resume",
        "0",
        "--timeout",
        "2.5",
      ],
      env,
    );
    expect(parsed).toEqual({
      ok: true,
      command: {
        kind: "run",
        text: "Restock aisle 5",
        storeId: "store-2",
        baseUrl: "https://x.test",
        token: "tok",
        messageId: "order-9",
        json: true,
        legacyMethods: true,
        maxResumeAttempts: 0,
        timeoutMs: 2500,
      },
    });
  });

  it("leaves the Environment to the workspace's default without --store", () => {
    expect(parseCliArgs(["Restock", "aisle", "5"], env)).toEqual({
      ok: true,
      command: {
        kind: "run",
        text: "Restock aisle 5",
        baseUrl: "http://localhost:8080",
        token: "a2a_p_env",
        json: false,
        legacyMethods: false,
      },
    });
  });

  it("attaches to a task without a text or store", () => {
    const parsed = parseCliArgs(["--attach", "task-1", "--last-event-id", "7", "--agent-card", "http://h/card.json"], {
      A2A_TOKEN: "t",
    });
    expect(parsed).toMatchObject({
      ok: true,
      command: { kind: "run", attach: "task-1", lastEventId: "7", agentCardUrl: "http://h/card.json" },
    });
    expect(parsed.ok && parsed.command.kind === "run" && parsed.command.allowCrossOriginEndpoint).toBeFalsy();
    const trusting = parseCliArgs(
      ["--attach", "t", "--agent-card", "http://h/c.json", "--allow-cross-origin-endpoint"],
      {
        A2A_TOKEN: "t",
      },
    );
    expect(trusting).toMatchObject({ ok: true, command: { allowCrossOriginEndpoint: true } });
  });

  it("answers --help", () => {
    expect(parseCliArgs(["--help"], {})).toEqual({ ok: true, command: { kind: "help" } });
    expect(parseCliArgs(["-h", "--bogus"], {}).ok).toBe(false);
  });

  it.each([
    [[], env, /missing the task text/],
    [["Restock", "--store", " "], env, /--store needs an Environment's storeId/],
    [["--attach", "t", "--store", "s"], env, /--store goes with a task text/],
    [["Restock", "--store", "s"], { A2A_TOKEN: "t" }, /missing the server/],
    [["Restock", "--store", "s"], { A2A_URL: "http://h" }, /missing the partner token/],
    [["Restock", "--store", "s", "--token", ""], { A2A_URL: "http://h" }, /missing the partner token/],
    [["Restock", "--store", "s", "--url", "localhost:8080"], env, /--url must be an http\(s\) URL/],
    [["Restock", "--store", "s", "--attach", "t"], env, /not both/],
    [["--attach", ""], env, /--attach needs a task id/],
    [["Restock", "--store", "s", "--last-event-id", "3"], env, /only goes with --attach/],
    [["--attach", "t", "--last-event-id", "three"], env, /non-negative integer/],
    [["Restock", "--store", "s", "--max-resume", "-1"], env, /--max-resume/],
    [["Restock", "--store", "s", "--timeout", "0"], env, /--timeout/],
    [["Restock", "--store", "s", "--frobnicate"], env, /frobnicate/],
    [["Restock", "--store"], env, /store/],
  ] as const)("refuses %j", (argv, environment, message) => {
    const parsed = parseCliArgs(argv, environment);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.message).toMatch(message);
  });
});
