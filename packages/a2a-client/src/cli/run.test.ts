import { afterEach, describe, expect, it } from "vitest";
import { agentCard, finished, frame, task, taskFrames } from "../../test/support/fixtures.js";
import {
  type Responder,
  type ScriptedServer,
  startScriptedServer,
  writeJson,
  writeSse,
} from "../../test/support/http-server.js";
import { type CliIo, runCli } from "./run.js";

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function serve(respond: Responder): Promise<ScriptedServer> {
  server = await startScriptedServer(respond);
  return server;
}

/** An output stream that keeps what is written; `watch` sees the whole text after each write. */
function capture(isTTY = false, watch?: (text: string) => void) {
  const out = {
    text: "",
    isTTY,
    write: (chunk: string) => {
      out.text += chunk;
      watch?.(out.text);
    },
  };
  return out;
}

async function run(
  argv: string[],
  env: Record<string, string> = {},
  extra: Partial<CliIo> = {},
  watchStderr?: (text: string) => void,
) {
  const stdout = capture();
  const stderr = capture(false, watchStderr);
  const code = await runCli({
    argv,
    env,
    stdout,
    stderr,
    clientOptions: { sleep: async () => {} },
    ...extra,
  });
  return { code, stdout: stdout.text, stderr: stderr.text };
}

describe("a2a-task", () => {
  it("follows a task to completed, shows the robots' progress, and exits 0", async () => {
    const { baseUrl, seen } = await serve((_, __, res) => writeSse(res, taskFrames("task-1", 3)));
    const result = await run(["Restock", "aisle", "5", "--store", "store-001", "--url", baseUrl, "--token", "a2a_p_x"]);

    expect(result.code).toBe(0);
    expect(result.stdout).toBe("completed: task task-1 - Done (completed)\n");
    expect(result.stderr).toContain("task task-1 in store-001: working");
    expect(result.stderr).toContain("[#######-------------]  33%  robot-1 · step 1/3  robot-1: step 1");
    expect(result.stderr).toContain("[####################] 100%  robot-3 · step 3/3");
    expect(seen[0]?.method).toBe("SendStreamingMessage");
    expect(seen[0]?.headers.authorization).toBe("Bearer a2a_p_x");
    expect(seen[0]?.params.metadata).toEqual({ storeId: "store-001" });
  });

  it("an agent that answers with a message (no task): prints it and exits 0", async () => {
    const reply = { kind: "message", role: "agent", messageId: "r-1", parts: [{ kind: "text", text: "On it" }] };
    const body = `data: ${JSON.stringify({ jsonrpc: "2.0", id: "1", result: reply })}\n\n`;
    const { baseUrl } = await serve((_, __, res) => writeSse(res, [body]));
    const result = await run(["Hello", "--store", "s"], { A2A_URL: baseUrl, A2A_TOKEN: "t" });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("message: On it\n");
    const json = await run(["Hello", "--store", "s", "--json"], { A2A_URL: baseUrl, A2A_TOKEN: "t" });
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ type: "message", message: { parts: [{ text: "On it" }] } });
  });

  it.each(["failed", "canceled", "rejected"] as const)("exits 1 when the task ends %s", async (state) => {
    const { baseUrl } = await serve((_, __, res) => writeSse(res, taskFrames("task-1", 1, state)));
    const result = await run(["Restock", "--store", "s"], { A2A_URL: baseUrl, A2A_TOKEN: "tok" });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe(`${state}: task task-1 - Done (${state})\n`);
  });

  it("takes url and token from A2A_URL and A2A_TOKEN", async () => {
    const { baseUrl, seen } = await serve((_, __, res) => writeSse(res, taskFrames()));
    const result = await run(["Restock", "--store", "s"], { A2A_URL: baseUrl, A2A_TOKEN: "a2a_p_from_env" });
    expect(result.code).toBe(0);
    expect(seen[0]?.headers.authorization).toBe("Bearer a2a_p_from_env");
  });

  it("--json prints one JSON line per event and never the final frame", async () => {
    const { baseUrl } = await serve((_, __, res) => writeSse(res, taskFrames("task-1", 2)));
    const result = await run(["Restock", "--store", "s", "--json"], { A2A_URL: baseUrl, A2A_TOKEN: "t" });
    expect(result.code).toBe(0);
    const lines = result.stdout
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string; eventId: string });
    expect(lines.map((l) => `${l.type}:${l.eventId}`)).toEqual(["task:1", "update:2", "update:3", "finished:4"]);
    expect(lines[3]).toMatchObject({ state: "completed" });
  });

  it("resumes after the connection drops and shows every event once", async () => {
    const frames = taskFrames("task-1", 3);
    const { baseUrl, seen } = await serve((n, _, res) =>
      n === 0
        ? writeSse(res, frames.slice(0, 3), "drop")
        : writeSse(res, [frame(1, "task", task()), ...frames.slice(3)]),
    );
    const result = await run(["Restock", "--store", "s", "--json"], { A2A_URL: baseUrl, A2A_TOKEN: "t" });
    expect(result.code).toBe(0);
    const types = result.stdout
      .trimEnd()
      .split("\n")
      .map((line) => (JSON.parse(line) as { eventId: string }).eventId);
    expect(types).toEqual(["1", "2", "3", "4", "5"]);
    expect(seen.map((r) => r.method)).toEqual(["SendStreamingMessage", "SubscribeToTask"]);
    expect(seen[1]?.headers["last-event-id"]).toBe("3");
    expect(result.stderr).toMatch(/stream dropped .*retrying in .*attempt 1\/5/);
  });

  it("--attach follows an existing task with SubscribeToTask and Last-Event-ID", async () => {
    const { baseUrl, seen } = await serve((_, __, res) =>
      writeSse(res, [
        frame(1, "task", task("task-9")),
        frame(6, "finished", finished("task-9")),
        frame(6, "final", task("task-9", "completed")),
      ]),
    );
    const result = await run(["--attach", "task-9", "--last-event-id", "5", "--legacy-methods"], {
      A2A_URL: baseUrl,
      A2A_TOKEN: "t",
    });
    expect(result.code).toBe(0);
    expect(seen[0]?.method).toBe("tasks/resubscribe");
    expect(seen[0]?.params).toEqual({ id: "task-9" });
    expect(seen[0]?.headers["last-event-id"]).toBe("5");
    expect(result.stdout).toBe("completed: task task-9 - Done (completed)\n");
  });

  it("exits 2 on usage errors without contacting anything", async () => {
    const noArgs = await run([], {});
    expect(noArgs.code).toBe(2);
    expect(noArgs.stderr).toMatch(/missing the task text.*\nRun a2a-task --help/);
    const noToken = await run(["Restock", "--store", "s", "--url", "http://127.0.0.1:9"], {});
    expect(noToken.code).toBe(2);
    expect(noToken.stderr).toMatch(/A2A_TOKEN/);
    const help = await run(["--help"], {});
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage:/);
  });

  it("exits 2 when the server refuses the parameters (unknown store)", async () => {
    const { baseUrl } = await serve((_, __, res) =>
      writeJson(res, 200, {
        jsonrpc: "2.0",
        id: "1",
        error: { code: -32602, message: "Invalid params: params.metadata.storeId: no Environment" },
      }),
    );
    const result = await run(["Restock", "--store", "nope"], { A2A_URL: baseUrl, A2A_TOKEN: "t" });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("InvalidParamsError: Invalid params: params.metadata.storeId: no Environment");
  });

  it("without --store, leaves the Environment to the server and shows the one it chose", async () => {
    const { baseUrl, seen } = await serve((_, __, res) => writeSse(res, taskFrames("task-1", 1)));
    const result = await run(["Restock"], { A2A_URL: baseUrl, A2A_TOKEN: "t" });
    expect(result.code).toBe(0);
    expect(seen[0]?.params.metadata).toBeUndefined();
    expect(result.stderr).toContain("task task-1 in store-001: working");
  });

  it("without --store and no default Environment: exits 2 and says to name one", async () => {
    const { baseUrl } = await serve((_, __, res) =>
      writeJson(res, 200, {
        jsonrpc: "2.0",
        id: "1",
        error: {
          code: -32602,
          message: "Invalid params: params.metadata.storeId: required (your workspace names no default Environment)",
          data: { field: "params.metadata.storeId" },
        },
      }),
    );
    const result = await run(["Restock"], { A2A_URL: baseUrl, A2A_TOKEN: "t" });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("no default Environment");
    expect(result.stderr).toContain("name an Environment of your workspace with --store <storeId>");
  });

  it("exits 3 with a hint on a rejected token", async () => {
    const { baseUrl, seen } = await serve((_, __, res) =>
      writeJson(
        res,
        401,
        { jsonrpc: "2.0", id: null, error: { code: -32600, message: "Missing or invalid token" } },
        { "www-authenticate": "Bearer" },
      ),
    );
    const result = await run(["Restock", "--store", "s", "--json"], { A2A_URL: baseUrl, A2A_TOKEN: "bad" });
    expect(result.code).toBe(3);
    expect(seen).toHaveLength(1);
    expect(JSON.parse(result.stdout)).toMatchObject({
      type: "error",
      error: { name: "AuthenticationError", status: 401 },
    });
    expect(result.stderr).toContain("check --token / A2A_TOKEN");
  });

  it("exits 3 with a hint when the agent card points at another origin, sending the token nowhere", async () => {
    const endpoint = "http://elsewhere.test/api/v1/a2a";
    const sent: string[] = [];
    const fetch = async (input: string | URL | Request) => {
      const url = input instanceof Request ? input.url : String(input);
      if (url === "http://cards.test/card.json") {
        return Response.json(agentCard(endpoint));
      }
      sent.push(url);
      return new Response("", { status: 500 });
    };
    const argv = ["Restock", "--store", "s", "--agent-card", "http://cards.test/card.json", "--token", "t"];
    const result = await run(argv, {}, { clientOptions: { sleep: async () => {}, fetch, dispatcher: false } });
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/UntrustedEndpointError: .*another origin, http:\/\/elsewhere\.test/);
    expect(result.stderr).toContain("--allow-cross-origin-endpoint");
    expect(sent).toEqual([]);
  });

  it("exits 3 when the server cannot be reached", async () => {
    const probe = await serve(() => {});
    const url = probe.baseUrl;
    await probe.close();
    server = undefined;
    const result = await run(["Restock", "--store", "s", "--url", url, "--token", "t"]);
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/APIConnectionError: Connection error/);
  });

  it("exits 130 on Ctrl-C and says how to reattach", async () => {
    const interrupt = new AbortController();
    const { baseUrl } = await serve((_, __, res) => writeSse(res, taskFrames("task-1", 3).slice(0, 2), "open"));
    // Ctrl-C once the CLI has shown the second event (its first progress line): on a timer, a loaded
    // machine could press it before that event arrived.
    const result = await run(
      ["Restock", "--store", "s"],
      { A2A_URL: baseUrl, A2A_TOKEN: "t" },
      { signal: interrupt.signal },
      (stderr) => {
        if (stderr.includes("step 1/3")) interrupt.abort();
      },
    );
    expect(result.code).toBe(130);
    expect(result.stderr).toContain("a2a-task --attach task-1 --last-event-id 2");
  });

  it("redraws one progress line on a terminal", async () => {
    const { baseUrl } = await serve((_, __, res) => writeSse(res, taskFrames("task-1", 2)));
    const stderr = capture(true);
    const stdout = capture();
    const code = await runCli({
      argv: ["Restock", "--store", "s"],
      env: { A2A_URL: baseUrl, A2A_TOKEN: "t" },
      stdout,
      stderr,
    });
    expect(code).toBe(0);
    expect(stderr.text).toContain("\r\x1b[2K| [##########----------]  50%");
    // The line is cleared before the result is printed, so the terminal ends clean.
    expect(stderr.text.endsWith("\r\x1b[2K")).toBe(true);
  });
});
