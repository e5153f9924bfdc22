import { type DescMessage, fromJson, type JsonValue, toBinary } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { A2AService } from "../../../third_party/generated/a2a_pb.js";
import { binaryOfJson } from "./json-to-binary.js";

// The answers' shapes, encoded directly: the bytes must be protobuf-es's, to the byte.
const output = (method: string): DescMessage => {
  const desc = A2AService.methods.find((m) => m.name === method);
  if (!desc) throw new Error(method);
  return desc.output;
};
const protobufEs = (schema: DescMessage, json: unknown) =>
  toBinary(schema, fromJson(schema, json as JsonValue, { ignoreUnknownFields: true }));

const message = {
  messageId: "m-1",
  role: "ROLE_USER",
  parts: [{ text: "Restock aisle 5", mediaType: "text/plain" }, { data: { sku: "A5", n: 3, ok: true, x: null } }],
  contextId: "ctx-1",
  taskId: "t-1",
  metadata: { storeId: "store-001", nested: { list: [1, "two", false, null, { deep: [] }] }, empty: {} },
  extensions: ["urn:x"],
  referenceTaskIds: [],
};
const task = {
  id: "t-1",
  contextId: "ctx-1",
  status: { state: "TASK_STATE_COMPLETED", timestamp: "2026-12-06T06:43:12.345Z", message },
  artifacts: [{ artifactId: "report", name: "Task report", parts: [{ text: "done" }], metadata: {} }],
  history: [message, { ...message, role: "ROLE_AGENT", messageId: "m-2", parts: [{ text: "" }] }],
  metadata: { storeId: "store-001", "a2a-partner/event-seq": 7 },
  unknownField: "left out",
};

describe("binaryOfJson", () => {
  it("writes a task, a stream response and an agent card as protobuf-es does", () => {
    const cases: [string, unknown][] = [
      ["GetTask", task],
      [
        "GetTask",
        { id: "t-2", contextId: "", status: { state: "TASK_STATE_WORKING", timestamp: "2026-01-01T00:00:00Z" } },
      ],
      ["SendStreamingMessage", { task }],
      [
        "SendStreamingMessage",
        { statusUpdate: { taskId: "t-1", contextId: "ctx-1", status: task.status, metadata: { step: 2 } } },
      ],
      [
        "SendStreamingMessage",
        {
          artifactUpdate: {
            taskId: "t-1",
            contextId: "c",
            artifact: task.artifacts[0],
            append: false,
            lastChunk: true,
          },
        },
      ],
      ["SendStreamingMessage", { message }],
      [
        "GetExtendedAgentCard",
        {
          name: "Robot fleet",
          description: "d",
          version: "1.0.0",
          supportedInterfaces: [{ url: "127.0.0.1:50051", protocolBinding: "GRPC", protocolVersion: "1.0" }],
          capabilities: { streaming: true, pushNotifications: false },
          securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: "Bearer", bearerFormat: "opaque" } } },
          securityRequirements: [{ schemes: { bearer: { list: ["a", "b"] } } }],
          defaultInputModes: ["text"],
          defaultOutputModes: ["text"],
          skills: [{ id: "restock", name: "Restock", description: "r", tags: ["shelf"] }],
        },
      ],
    ];
    for (const [method, json] of cases) {
      const schema = output(method);
      expect(binaryOfJson(schema, json), `${method} ${JSON.stringify(json).slice(0, 60)}`).toEqual(
        protobufEs(schema, json),
      );
    }
  });

  it("leaves what it does not take to protobuf-es", () => {
    const schema = output("GetTask");
    expect(binaryOfJson(schema, { ...task, status: { state: "NO_SUCH_STATE" } })).toBeUndefined();
    expect(binaryOfJson(schema, { ...task, status: { timestamp: "2026-12-06T06:43:12+01:00" } })).toBeUndefined();
    expect(binaryOfJson(schema, { ...task, id: 42 })).toBeUndefined();
  });
});
