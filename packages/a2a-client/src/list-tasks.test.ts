import { describe, expect, it } from "vitest";
import { jsonRpcErrorResponse, jsonRpcResultResponse, task } from "../test/support/fixtures.js";
import { mockEndpoint, testClient } from "../test/support/mock-endpoint.js";
import { InvalidParamsError, InvalidResponseError, ServerError } from "./index.js";

const { script } = mockEndpoint();

function page(ids: string[], nextPageToken: string, totalSize = ids.length) {
  return { tasks: ids.map((id) => task(id)), nextPageToken, pageSize: ids.length, totalSize };
}

describe("listTasks", () => {
  it("sends ListTasks with the filters given and returns the typed page", async () => {
    const seen = script(() => jsonRpcResultResponse(page(["task-1", "task-2"], "tok-2", 5)));
    const { client } = testClient();
    const result = await client.listTasks({
      contextId: "ctx-1",
      status: "working",
      statusTimestampAfter: new Date("2025-01-01T00:00:00Z"),
      pageSize: 2,
      historyLength: 0,
      includeArtifacts: true,
    });
    expect(seen[0]?.method).toBe("ListTasks");
    expect(seen[0]?.params).toEqual({
      contextId: "ctx-1",
      status: "working",
      statusTimestampAfter: "2025-01-01T00:00:00.000Z",
      pageSize: 2,
      historyLength: 0,
      includeArtifacts: true,
    });
    expect(seen[0]?.headers.has("a2a-version")).toBe(false);
    expect(result.tasks.map((t) => t.id)).toEqual(["task-1", "task-2"]);
    expect(result).toMatchObject({ nextPageToken: "tok-2", pageSize: 2, totalSize: 5 });
  });

  it("uses the alias tasks/list for older servers", async () => {
    const seen = script(() => jsonRpcResultResponse(page([], "")));
    await testClient({ methodNames: "alias" }).client.listTasks();
    expect(seen[0]?.method).toBe("tasks/list");
  });

  it("retries a 503 like getTask (a read is safe to repeat) and throws JSON-RPC errors typed", async () => {
    const seen = script((n) =>
      n === 0 ? jsonRpcErrorResponse(-32603, "busy", 503) : jsonRpcResultResponse(page(["task-1"], "")),
    );
    const { client, retries } = testClient();
    expect((await client.listTasks()).tasks).toHaveLength(1);
    expect(seen).toHaveLength(2);
    expect(retries).toMatchObject([{ kind: "request", attempt: 1 }]);

    script(() => jsonRpcErrorResponse(-32602, "Invalid params", 200, { issues: [{ field: "params.pageToken" }] }));
    await expect(client.listTasks({ pageToken: "forged" })).rejects.toBeInstanceOf(InvalidParamsError);

    script(() => jsonRpcErrorResponse(-32603, "down", 500));
    await expect(testClient({ maxRetries: 0 }).client.listTasks()).rejects.toBeInstanceOf(ServerError);
  });

  it("refuses a bad pageSize or historyLength before sending anything", async () => {
    const seen = script(() => jsonRpcResultResponse(page([], "")));
    const { client } = testClient();
    await expect(client.listTasks({ pageSize: 0 })).rejects.toThrow(TypeError);
    await expect(client.listTasks({ pageSize: 101 })).rejects.toThrow(TypeError);
    await expect(client.listTasks({ historyLength: -1 })).rejects.toThrow(TypeError);
    expect(seen).toHaveLength(0);
  });

  it("rejects a result that is not a page", async () => {
    script(() => jsonRpcResultResponse({ tasks: "nope" }));
    await expect(testClient().client.listTasks()).rejects.toBeInstanceOf(InvalidResponseError);
  });
});

describe("listAllTasks", () => {
  it("walks every page with the previous nextPageToken and stops at the empty one", async () => {
    const pages = [page(["a", "b"], "p2", 5), page(["c", "d"], "p3", 5), page(["e"], "", 5)];
    const seen = script((n) => jsonRpcResultResponse(pages[n]));
    const ids: string[] = [];
    for await (const listed of testClient().client.listAllTasks({ pageSize: 2, status: "working" }))
      ids.push(listed.id);
    expect(ids).toEqual(["a", "b", "c", "d", "e"]);
    expect(seen.map((r) => r.params.pageToken)).toEqual([undefined, "p2", "p3"]);
    expect(seen.every((r) => r.params.pageSize === 2 && r.params.status === "working")).toBe(true);
  });

  it("requests no further page once the caller stops", async () => {
    const seen = script(() => jsonRpcResultResponse(page(["a", "b"], "more")));
    for await (const listed of testClient().client.listAllTasks()) if (listed.id === "a") break;
    expect(seen).toHaveLength(1);
  });

  it("fails instead of looping when the server hands back the same token", async () => {
    script(() => jsonRpcResultResponse(page(["a"], "same")));
    const walk = async () => {
      for await (const _ of testClient().client.listAllTasks()) {
        // drain
      }
    };
    await expect(walk()).rejects.toBeInstanceOf(InvalidResponseError);
  });
});
