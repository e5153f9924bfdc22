import { A2A_VERSION_HEADER, type AgentCard, type JsonRpcErrorObject } from "@a2a-partner/a2a-core";
import {
  fromV1Error,
  ListTasksResultV1,
  MessageV1,
  type MethodName,
  methodWire,
  StreamResponseV1,
  TaskV1,
} from "@a2a-partner/a2a-core/protocol";
import { InvalidResponseError } from "../../errors.js";
import { messageFromV1, streamResultFromV1, taskFromV1 } from "../../model.js";
import { fromV1PushConfig, type PushConfigPage, pushConfigPageV1, pushConfigPageV03 } from "./push-v1.js";

/** The A2A versions the client speaks. */
export type ClientProtocolVersion = "0.3" | "1.0";

/** What a SendMessage answered, in the v0.3 shapes (unchecked): a task, or the agent's message. */
export type SendAnswer = { kind: "task"; task: unknown } | { kind: "message"; message: unknown };

/**
 * What differs on the wire between the two dialects of one endpoint, as the client sees it: the client
 * works in the v0.3 shapes throughout and the v1.0 dialect converts with a2a-core's mapping (docs/interop.md).
 * Results come back unchecked: the caller checks them against the v0.3 schemas as for v0.3 answers.
 */
export interface WireDialect {
  readonly version: ClientProtocolVersion;
  /** The binding the requests go out in: JSON-RPC envelopes, HTTP+JSON routes or gRPC (both A2A v1.0 only). */
  readonly binding: "jsonrpc" | "http+json" | "grpc";
  /** Headers of every JSON-RPC request. */
  readonly headers: Readonly<Record<string, string>>;
  params(method: MethodName, params: Record<string, unknown>): Record<string, unknown>;
  /** The result of GetTask and CancelTask. */
  task(result: unknown): unknown;
  /** The result of ListTasks. */
  list(result: unknown): unknown;
  /** The `result` of a stream frame. */
  streamResult(result: unknown): unknown;
  /** The result of SendMessage: v0.3's Task or Message (`kind`), v1.0's `{ task }` or `{ message }`. */
  sendAnswer(result: unknown): SendAnswer;
  /** The Message an unnamed stream frame's result carries (an agent's reply to a start), else undefined. */
  streamMessage(result: unknown): unknown;
  /** SendMessage's `configuration` fields for "answer at once" (v0.3 `blocking: false`, v1.0 `returnImmediately`). */
  returnImmediately(): Record<string, unknown>;
  /** The result of CreateTaskPushNotificationConfig and GetTaskPushNotificationConfig (v0.3 shape). */
  pushConfig(result: unknown): unknown;
  /** The result of ListTaskPushNotificationConfigs: one page, its configs in the v0.3 shape. */
  pushConfigPage(result: unknown): PushConfigPage;
  error(error: JsonRpcErrorObject): JsonRpcErrorObject;
}

export const WIRE_V03: WireDialect = {
  version: "0.3",
  binding: "jsonrpc",
  headers: {},
  params: (_method, params) => params,
  task: (result) => result,
  list: (result) => result,
  streamResult: (result) => result,
  sendAnswer: (result) =>
    asRecord(result).kind === "message" ? { kind: "message", message: result } : { kind: "task", task: result },
  streamMessage: (result) => (asRecord(result).kind === "message" ? result : undefined),
  returnImmediately: () => ({ blocking: false }),
  pushConfig: (result) => result,
  pushConfigPage: pushConfigPageV03,
  error: (error) => error,
};

export const WIRE_V1: WireDialect = {
  version: "1.0",
  binding: "jsonrpc",
  headers: { [A2A_VERSION_HEADER]: "1.0" },
  params: (method, params) => methodWire(method).v1?.write(params) ?? params,
  task(result) {
    const parsed = TaskV1.safeParse(result);
    if (!parsed.success) throw new InvalidResponseError("The server's result is not a v1.0 Task");
    return taskFromV1(parsed.data);
  },
  list(result) {
    const parsed = ListTasksResultV1.safeParse(result);
    if (!parsed.success) throw new InvalidResponseError("The server's result is not a v1.0 ListTasksResponse");
    return { ...parsed.data, tasks: parsed.data.tasks.map(taskFromV1) };
  },
  streamResult(result) {
    const parsed = StreamResponseV1.safeParse(result);
    if (!parsed.success) throw new InvalidResponseError("A stream frame's result is not a v1.0 StreamResponse");
    return streamResultFromV1(parsed.data);
  },
  sendAnswer: (result) => v1SendAnswer(result, WIRE_V1.task),
  streamMessage: (result) => {
    const { message } = asRecord(result);
    return message === undefined ? undefined : v1Message(message);
  },
  returnImmediately: () => ({ returnImmediately: true }),
  pushConfig: fromV1PushConfig,
  pushConfigPage: pushConfigPageV1,
  error: fromV1Error,
};

/** v1.0's SendMessageResponse: `{ task }` or `{ message }`, the task read with the binding's `task`. */
function v1SendAnswer(result: unknown, task: (value: unknown) => unknown): SendAnswer {
  const response = asRecord(result);
  if (response.message !== undefined) return { kind: "message", message: v1Message(response.message) };
  if (response.task !== undefined) return { kind: "task", task: task(response.task) };
  throw new InvalidResponseError("The server's result is not a v1.0 SendMessageResponse ({ task } or { message })");
}

function v1Message(value: unknown): unknown {
  const parsed = MessageV1.safeParse(value);
  if (!parsed.success) throw new InvalidResponseError("The server's message is not a v1.0 Message");
  return messageFromV1(parsed.data);
}

/** A2A v1.0 over the HTTP+JSON binding: the v1.0 shapes, without the JSON-RPC envelope. */
export const WIRE_HTTP_JSON: WireDialect = { ...WIRE_V1, binding: "http+json" };

/**
 * A2A v1.0 over gRPC: the v1.0 shapes as ProtoJSON, which leaves out a field at its default (an empty
 * list, a zero, an empty token), so a page is read with those defaults put back.
 */
export const WIRE_GRPC: WireDialect = {
  ...WIRE_V1,
  binding: "grpc",
  task: (result) => WIRE_V1.task(withTaskLists(result)),
  list(result) {
    const page = { tasks: [], nextPageToken: "", pageSize: 0, totalSize: 0, ...asRecord(result) };
    const tasks = Array.isArray(page.tasks)
      ? page.tasks.map((task) => ({ history: [], ...asRecord(task) }))
      : page.tasks;
    return WIRE_V1.list({ ...page, tasks });
  },
  streamResult(result) {
    const response = asRecord(result);
    return WIRE_V1.streamResult(response.task ? { task: withTaskLists(response.task) } : result);
  },
  sendAnswer(result) {
    const { message } = asRecord(result);
    // ProtoJSON leaves out an empty list: a message's parts too.
    const answer = message === undefined ? result : { message: { parts: [], ...asRecord(message) } };
    return v1SendAnswer(answer, WIRE_GRPC.task);
  },
  streamMessage(result) {
    const { message } = asRecord(result);
    return message === undefined ? undefined : v1Message({ parts: [], ...asRecord(message) });
  },
};

/** A task's `history` and `artifacts` as a JSON answer has them: ProtoJSON leaves out an empty list. */
function withTaskLists(task: unknown): Record<string, unknown> {
  return { history: [], artifacts: [], ...asRecord(task) };
}

function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

export function wireDialect(version: ClientProtocolVersion, binding: WireDialect["binding"] = "jsonrpc"): WireDialect {
  if (binding === "grpc") return WIRE_GRPC;
  if (binding === "http+json") return WIRE_HTTP_JSON;
  return version === "1.0" ? WIRE_V1 : WIRE_V03;
}

/**
 * The version to speak with the endpoint a card declared: 1.0 when a `supportedInterfaces` entry with
 * protocolVersion 1.0 (any patch) and the JSON-RPC binding has that very endpoint as its url, else 0.3.
 */
/**
 * The gRPC interface of A2A 1.0 a card declares: its `host:port` (a `grpc://` or `grpcs://` prefix
 * removed), or undefined.
 */
export function grpcInterfaceOf(card: AgentCard): string | undefined {
  for (const entry of card.supportedInterfaces ?? []) {
    if (entry.protocolBinding.toUpperCase() !== "GRPC") continue;
    if (!/^1\.0(\.\d+)?$/.test(entry.protocolVersion.trim())) continue;
    const address = entry.url
      .trim()
      .replace(/^grpcs?:\/\//i, "")
      .replace(/\/+$/, "");
    if (address !== "") return address;
  }
  return undefined;
}

/**
 * The HTTP+JSON interface of A2A 1.0 a card declares (its url, resolved against the card's), or
 * undefined. The binding is v1.0 only, so an interface of another version does not count.
 */
export function httpJsonInterfaceOf(card: AgentCard, cardUrl: string): string | undefined {
  for (const entry of card.supportedInterfaces ?? []) {
    if (entry.protocolBinding.toUpperCase() !== "HTTP+JSON") continue;
    if (!/^1\.0(\.\d+)?$/.test(entry.protocolVersion.trim())) continue;
    try {
      return new URL(entry.url, cardUrl).toString().replace(/\/+$/, "");
    } catch {}
  }
  return undefined;
}

export function versionOfferedBy(card: AgentCard, endpoint: string, cardUrl: string): ClientProtocolVersion {
  const offers = card.supportedInterfaces?.some((entry) => {
    if (!/^1\.0(\.\d+)?$/.test(entry.protocolVersion.trim())) return false;
    if (entry.protocolBinding.toUpperCase() !== "JSONRPC") return false;
    try {
      return new URL(entry.url, cardUrl).toString() === endpoint;
    } catch {
      return false;
    }
  });
  return offers ? "1.0" : "0.3";
}
