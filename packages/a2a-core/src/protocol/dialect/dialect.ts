import { type MethodName, methodWire } from "../method-table.js";
import type { Message, Task, TaskUpdateResult } from "../schemas/a2a.js";
import type { JsonRpcErrorObject } from "../schemas/jsonrpc.js";
import type { ListedTask } from "../schemas/list-tasks.js";
import type { TaskPushNotificationConfigV03 } from "../schemas/push-config.js";
import { withJsonFieldNames } from "./proto-field-names.js";
import type { ProtocolVersion } from "./protocol-version.js";
import { toV1PushConfig, toV1PushConfigList } from "./push-config-mapping.js";
import { toV1Error } from "./v1-errors.js";
import { toV1Message, toV1StreamResult, toV1Task } from "./v1-mapping.js";

/**
 * A logged event on its way to streams, its v0.3 `result` serialised once. Every stream of a task is
 * handed the same object, so a dialect can convert it once (keyed by identity) and not once per stream.
 */
export interface SerialisedEvent {
  readonly resultJson: string;
}

/** How a stream writes its frames' `result`s: the event names and ids are the same in every dialect. */
export interface StreamRenderer {
  /** The `result` JSON of a logged event (`update`, `finished`). */
  eventJson(event: SerialisedEvent): string;
  /** The `result` JSON of a `task` or `final` frame. */
  taskJson(task: Task): string;
  /** The `result` JSON of a stream's one frame when the agent replied with a message. */
  messageJson(message: Message): string;
}

/** One page of ListTasks, in the v0.3 shapes, before the dialect renders it. */
export interface TaskListResult {
  tasks: ListedTask[];
  nextPageToken: string;
  pageSize: number;
  totalSize: number;
}

/**
 * What differs between the two dialects of the one endpoint. The handler works in the v0.3 shapes
 * throughout; a dialect turns a request's params into them and the answers back out of them.
 */
export interface Dialect {
  readonly version: ProtocolVersion;
  /** The params in the v0.3 shape the method's schema checks (throws InvalidParamsError). */
  params(method: MethodName, params: Record<string, unknown>): Record<string, unknown>;
  /** The result of GetTask and CancelTask. */
  task(task: Task): unknown;
  list(result: TaskListResult): unknown;
  /** The result of CreateTaskPushNotificationConfig and GetTaskPushNotificationConfig. */
  pushConfig(config: TaskPushNotificationConfigV03): unknown;
  /** The result of ListTaskPushNotificationConfigs. */
  pushConfigList(configs: readonly TaskPushNotificationConfigV03[]): unknown;
  /** The result of a method that answers nothing (DeleteTaskPushNotificationConfig). */
  empty(): unknown;
  readonly stream: StreamRenderer;
  error(error: JsonRpcErrorObject): JsonRpcErrorObject;
}

const V03_STREAM: StreamRenderer = {
  eventJson: (event) => event.resultJson,
  taskJson: (task) => JSON.stringify(task),
  messageJson: (message) => JSON.stringify(message),
};

/** Today's dialect: v0.3 payloads, exactly as the contract and docs/protocol.md describe them. */
export const DIALECT_V03: Dialect = {
  version: "0.3",
  params: (_method, params) => params,
  task: (task) => task,
  list: (result) => result,
  pushConfig: (config) => config,
  pushConfigList: (configs) => configs,
  empty: () => null,
  stream: V03_STREAM,
  error: (error) => error,
};

// Every stream of a task shares one LiveEvent per event, so each is converted once, not once per stream.
const v1EventJson = new WeakMap<SerialisedEvent, string>();

const V1_STREAM: StreamRenderer = {
  eventJson(event) {
    let json = v1EventJson.get(event);
    if (json === undefined) {
      json = JSON.stringify(toV1StreamResult(JSON.parse(event.resultJson) as TaskUpdateResult));
      v1EventJson.set(event, json);
    }
    return json;
  },
  taskJson: (task) => JSON.stringify(toV1StreamResult(task)),
  messageJson: (message) => JSON.stringify({ message: toV1Message(message) }),
};

/** A2A v1.0 (`A2A-Version: 1.0`): ProtoJSON payloads, `StreamResponse` results, ErrorInfo details. */
export const DIALECT_V1: Dialect = {
  version: "1.0",
  params(method, params) {
    // The v1.0 `tenant` is the caller's workspace here, which the credentials already say.
    const { tenant: _tenant, ...rest } = withJsonFieldNames(params);
    return methodWire(method).v1?.read(rest) ?? rest;
  },
  task: (task) => toV1Task(task),
  list: (result) => ({
    ...result,
    tasks: result.tasks.map((task) => toV1Task(task, { omitArtifacts: task.artifacts === undefined })),
  }),
  pushConfig: toV1PushConfig,
  pushConfigList: toV1PushConfigList,
  // google.protobuf.Empty
  empty: () => ({}),
  stream: V1_STREAM,
  error: toV1Error,
};

export function dialectFor(version: ProtocolVersion): Dialect {
  return version === "1.0" ? DIALECT_V1 : DIALECT_V03;
}
