// @a2a-partner/a2a-core/protocol: the wire vocabulary the typed client, the stores and the core share,
// name by name — the method table (names, aliases, HTTP+JSON routes, how each dialect's params map), the
// two dialects, A2A v0.3's shapes and their mapping to the core's model (A2A v1.0), and the v1.0 wire
// schemas. For clients, bindings and stores; an embedder who serves an agent needs only the main entry.

export type { Dialect, SerialisedEvent, StreamRenderer, TaskListResult } from "./protocol/dialect/dialect.js";

export { dialectFor } from "./protocol/dialect/dialect-for.js";
export { DIALECT_V1 } from "./protocol/dialect/v1-dialect.js";
export { fromHttpJsonStatus, fromV1Error, toV1Error } from "./protocol/dialect/v1-errors.js";
export {
  fromV1Status,
  fromV1StreamResult,
  fromV1Task,
  toV1StreamResult,
  toV1Task,
} from "./protocol/dialect/v1-wire.js";
export {
  aliasOf,
  type HttpRoute,
  METHODS,
  type MethodAlias,
  type MethodName,
  type MethodWire,
  methodWire,
  resolveMethod,
  type V1Params,
  WIRE_METHOD_NAMES,
} from "./protocol/method-table.js";
export {
  ArtifactV1,
  BadRequestV1,
  ErrorInfoV1,
  MessageV1,
  PartV1,
  RoleV1,
  StreamResponseV1,
  TaskArtifactUpdateEventV1,
  TaskStateV1,
  TaskStatusUpdateEventV1,
  TaskStatusV1,
  TaskV1,
} from "./protocol/schemas/a2a-v1.js";
export { ListTasksResultV1 } from "./protocol/schemas/list-tasks.js";
export type { TaskPushConfig } from "./protocol/schemas/push-config.js";
export type { ListPushConfigsResultV1, TaskPushNotificationConfigV1 } from "./protocol/schemas/push-config-v1.js";
export { DIALECT_V03 } from "./protocol/v0_3/dialect.js";
export {
  fromV03Event,
  fromV03Message,
  fromV03State,
  fromV03Status,
  fromV03Task,
  readV03Message,
  STATE_FROM_V03,
  toV03Event,
  toV03Message,
  toV03State,
  toV03Status,
  toV03Task,
} from "./protocol/v0_3/mapping.js";
export {
  fromV03CreatePushParams,
  fromV03DeletePushParams,
  fromV03GetPushParams,
  fromV03ListPushParams,
  PushNotificationConfigV03,
  type TaskPushNotificationConfigV03,
  toV03PushConfig,
} from "./protocol/v0_3/push-config.js";
export {
  ArtifactV03,
  DataPartV03,
  FilePartV03,
  isTerminalStateV03,
  ListedTaskV03,
  ListTasksResultV03,
  MessageV03,
  PartV03,
  RoleV03,
  TASK_STATES_V03,
  TaskArtifactUpdateEventV03,
  TaskMetadataV03,
  TaskStateV03,
  TaskStatusUpdateEventV03,
  TaskStatusV03,
  TaskUpdateResultV03,
  TaskV03,
  TERMINAL_TASK_STATES_V03,
  TerminalTaskStateV03,
  TextPartV03,
} from "./protocol/v0_3/schemas.js";
export { madeV03EventJson, v03EventJson, v03TaskJson } from "./protocol/v0_3/v03-json.js";
