import { buildAgentCardV1 } from "@a2a-partner/a2a-core";
import { describe, expect, it } from "vitest";
import { endpointFromAgentCard } from "../../discovery.js";
import { httpJsonErrorOf, httpJsonRequest } from "./http-json-route.js";

const base = "https://robots.example.com/api/v1/a2a";

describe("the client's HTTP+JSON routes", () => {
  it("puts each method's params where the binding reads them: path, query, body", () => {
    expect(httpJsonRequest(base, "GetTask", { id: "a/b", historyLength: 0 })).toEqual({
      verb: "GET",
      url: `${base}/tasks/a%2Fb?historyLength=0`,
    });
    expect(httpJsonRequest(base, "ListTasks", { status: "TASK_STATE_WORKING", pageSize: 5 })).toEqual({
      verb: "GET",
      url: `${base}/tasks?status=TASK_STATE_WORKING&pageSize=5`,
    });
    expect(httpJsonRequest(base, "CancelTask", { id: "t1" })).toEqual({ verb: "POST", url: `${base}/tasks/t1:cancel` });
    expect(httpJsonRequest(base, "SubscribeToTask", { id: "t1" })).toEqual({
      verb: "POST",
      url: `${base}/tasks/t1:subscribe`,
    });
    const start = httpJsonRequest(base, "SendStreamingMessage", { message: { role: "ROLE_USER" } });
    expect(start).toMatchObject({ verb: "POST", url: `${base}/message:stream` });
    expect(JSON.parse(start.body as string)).toEqual({ message: { role: "ROLE_USER" } });
  });

  it("reads a google.rpc.Status body as the protocol error its ErrorInfo reason names", () => {
    const body = {
      error: {
        code: 400,
        status: "FAILED_PRECONDITION",
        message: "Task t1 cannot be canceled",
        details: [
          {
            "@type": "type.googleapis.com/google.rpc.ErrorInfo",
            reason: "TASK_NOT_CANCELABLE",
            domain: "a2a-protocol.org",
            metadata: { state: "completed" },
          },
        ],
      },
    };
    expect(httpJsonErrorOf(JSON.stringify(body))).toEqual({
      code: -32002,
      message: "Task t1 cannot be canceled",
      data: { state: "completed" },
    });
    expect(httpJsonErrorOf('{"error":{"message":"no details"}}')).toBeUndefined();
    expect(httpJsonErrorOf("not json")).toBeUndefined();
  });

  it("picks the card's HTTP+JSON interface when asked, or when it is the only one", () => {
    const input = {
      name: "n",
      description: "d",
      endpointUrl: "https://robots.example.com/rpc",
      version: "1",
      skills: [],
    };
    const rpc = buildAgentCardV1({ ...input, httpJsonUrl: "https://robots.example.com/rest" });
    // A card that offers HTTP+JSON only.
    const card = {
      ...rpc,
      supportedInterfaces: rpc.supportedInterfaces.filter((i) => i.protocolBinding === "HTTP+JSON"),
    };
    const cardUrl = "https://robots.example.com/.well-known/agent-card.json";
    expect(endpointFromAgentCard(card, cardUrl, "auto")).toMatchObject({
      endpoint: "https://robots.example.com/rest",
      binding: "http+json",
    });
    expect(() => endpointFromAgentCard(card, cardUrl, "jsonrpc")).toThrow(/no JSON-RPC endpoint/);
    const both = rpc;
    expect(endpointFromAgentCard(both, cardUrl, "auto").binding).toBe("jsonrpc");
    expect(endpointFromAgentCard(both, cardUrl, "http+json").endpoint).toBe("https://robots.example.com/rest");
  });
});
