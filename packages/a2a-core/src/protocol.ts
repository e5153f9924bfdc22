// @a2a-partner/a2a-core/protocol: the wire vocabulary the typed client and the core share, name by name —
// the method table (names, aliases, HTTP+JSON routes, how v1.0 params map), the two dialects and the
// mapping between A2A v1.0's shapes and the v0.3 shapes the core works in, and the v1.0 schemas. For
// clients and bindings; an embedder who serves an agent needs only the main entry.

export type { Dialect, SerialisedEvent, StreamRenderer, TaskListResult } from "./protocol/dialect/dialect.js";

export { DIALECT_V1, DIALECT_V03, dialectFor } from "./protocol/dialect/dialect.js";

export { fromHttpJsonStatus, fromV1Error, toV1Error } from "./protocol/dialect/v1-errors.js";

export {
  fromV1Message,
  fromV1MessageResult,
  fromV1State,
  fromV1Status,
  fromV1StreamResult,
  fromV1Task,
  toV1Message,
  toV1Status,
  toV1StreamResult,
  toV1Task,
} from "./protocol/dialect/v1-mapping.js";

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
  ROLE_V1,
  RoleV1,
  StreamResponseV1,
  TASK_STATE_V1,
  TaskArtifactUpdateEventV1,
  TaskStateV1,
  type TaskStateV1Name,
  TaskStatusUpdateEventV1,
  TaskStatusV1,
  TaskV1,
} from "./protocol/schemas/a2a-v1.js";
export { ListTasksResultV1 } from "./protocol/schemas/list-tasks.js";
export type { ListPushConfigsResultV1, TaskPushNotificationConfigV1 } from "./protocol/schemas/push-config-v1.js";
