import { type Message, Role, type SendMessageRequest, type StreamResponse, type Task, TaskState } from "@a2a-js/sdk";
import {
  type CallInterceptor,
  type Client,
  ClientFactory,
  JsonRpcTransportFactory,
  RestTransportFactory,
} from "@a2a-js/sdk/client";
import { GrpcTransportFactory } from "@a2a-js/sdk/client/grpc";
import { beforeAll, describe, expect, it } from "vitest";
import { sharedTckAgent, TCK_TOKEN as TOKEN } from "./support/shared-agent.ts";

// The official @a2a-js/sdk client against the conformance agent, over each binding (JSON-RPC, HTTP+JSON,
// gRPC): SendMessage blocking and not, a multi-turn exchange (a task that asks for input, answered with its
// taskId), and a message reply (the executor's `reply`: a Message, no task).

const agentOf = sharedTckAgent();

const bearer: CallInterceptor = {
  async before(args) {
    args.options = {
      ...args.options,
      serviceParameters: { ...args.options?.serviceParameters, Authorization: `Bearer ${TOKEN}` },
    };
  },
  async after() {},
};

function request(messageId: string, text: string, more: { taskId?: string; returnImmediately?: boolean } = {}) {
  return {
    tenant: "",
    message: {
      messageId,
      contextId: "",
      taskId: more.taskId ?? "",
      role: Role.ROLE_USER,
      parts: [{ content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "" }],
      metadata: undefined,
      extensions: [],
      referenceTaskIds: [],
    },
    configuration: {
      acceptedOutputModes: [],
      taskPushNotificationConfig: undefined,
      historyLength: undefined,
      returnImmediately: more.returnImmediately ?? false,
    },
    metadata: undefined,
  } satisfies SendMessageRequest;
}

function asTask(result: unknown): Task {
  const task = result as Task;
  if (typeof task.id !== "string" || task.status === undefined)
    throw new Error(`not a task: ${JSON.stringify(result)}`);
  return task;
}

describe.each([
  ["JSONRPC", () => new JsonRpcTransportFactory()],
  ["HTTP+JSON", () => new RestTransportFactory()],
  ["GRPC", () => new GrpcTransportFactory()],
] as const)("the official client over %s", (binding, transport) => {
  let client: Client;
  beforeAll(async () => {
    // Options of our own: ClientFactoryOptions.createFrom(default, …) merges the default transports back
    // in, and with JSON-RPC first in the card every client would speak JSON-RPC.
    const factory = new ClientFactory({ transports: [transport()], clientConfig: { interceptors: [bearer] } });
    client = await factory.createFromUrl(agentOf().url);
    expect(client.transport.protocolName).toBe(binding);
  });

  it("sendMessage waits for the task's end", async () => {
    const task = asTask(await client.sendMessage(request(`tck-complete-task-${crypto.randomUUID()}`, "hi")));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const parts = task.status?.message?.parts ?? [];
    expect(parts[0]?.content).toEqual({ $case: "text", value: "Hello from TCK" });
  });

  it("sendMessage with returnImmediately answers the task at once; it ends later", async () => {
    const id = `test-resubscribe-message-id-${crypto.randomUUID()}`;
    const task = asTask(await client.sendMessage(request(id, "slow", { returnImmediately: true })));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    const later = await client.getTask({ tenant: "", id: task.id, historyLength: undefined });
    expect(later.id).toBe(task.id);
  });

  it("a multi-turn exchange: the task asks for input, the answer with its taskId completes it", async () => {
    const asked = asTask(await client.sendMessage(request(`tck-input-required-${crypto.randomUUID()}`, "start")));
    expect(asked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const replyId = `reply-${crypto.randomUUID()}`;
    const done = asTask(await client.sendMessage(request(replyId, "more", { taskId: asked.id })));
    expect(done.id).toBe(asked.id);
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(done.history.map((message) => message.messageId)).toContain(replyId);
  });

  it("a message reply (no task): sendMessage gets the Message, sendMessageStream one message event", async () => {
    const reply = (await client.sendMessage(request(`tck-message-response-${crypto.randomUUID()}`, "hi"))) as Message;
    expect(reply.role).toBe(Role.ROLE_AGENT);
    expect(reply.parts[0]?.content).toEqual({ $case: "text", value: "Direct message response" });
    const events: StreamResponse[] = [];
    for await (const event of client.sendMessageStream(request(`tck-message-response-${crypto.randomUUID()}`, "hi"))) {
      events.push(event);
    }
    expect(events.map((event) => event.payload?.$case)).toEqual(["message"]);
  });
});
