import type { MethodName } from "../method-table.js";
import type { Message, Task, TaskEventResult } from "../schemas/a2a.js";
import type { AgentCardInput } from "../schemas/agent-card-input.js";
import type { JsonRpcErrorObject } from "../schemas/jsonrpc.js";
import type { ListedTask } from "../schemas/list-tasks.js";
import type { TaskPushConfig } from "../schemas/push-config.js";
import type { ProtocolVersion } from "./protocol-version.js";

/**
 * A logged event on its way to streams. Every stream of a task is handed the same object, so each JSON
 * text of its result is made once, by the first stream that writes that dialect.
 */
export interface SerialisedEvent {
  /** The result in the model (A2A v1.0); shared by every stream, never to be written to. */
  readonly result: TaskEventResult;
  /** The result's JSON in the model (its v1.0 `StreamResponse`), made at the first read. */
  readonly resultJson: string;
  /** Its v0.3 JSON, once made (by the store that logged it in v0.3, or by the first v0.3 stream). */
  v03Json?: string;
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

/** One page of ListTasks, in the model, before the dialect renders it. */
export interface TaskListResult {
  tasks: ListedTask[];
  nextPageToken: string;
  pageSize: number;
  totalSize: number;
}

/**
 * What differs between the two dialects of the one endpoint. The methods work in the model (A2A v1.0)
 * throughout; a dialect turns a request's params into it and the answers back out of it.
 */
export interface Dialect {
  readonly version: ProtocolVersion;
  /** The params in the shape the method's schema checks (throws InvalidParamsError). */
  params(method: MethodName, params: Record<string, unknown>): Record<string, unknown>;
  /** The result of GetTask, CancelTask and a SendMessage that made a task. */
  task(task: Task): unknown;
  /** The result of a SendMessage the agent answered with a message. */
  message(message: Message): unknown;
  list(result: TaskListResult): unknown;
  /** The result of CreateTaskPushNotificationConfig and GetTaskPushNotificationConfig. */
  pushConfig(config: TaskPushConfig): unknown;
  /** The result of ListTaskPushNotificationConfigs. */
  pushConfigList(configs: readonly TaskPushConfig[]): unknown;
  /** The result of GetExtendedAgentCard: the card in this dialect's shape. */
  agentCard(card: AgentCardInput): unknown;
  /** The result of a method that answers nothing (DeleteTaskPushNotificationConfig). */
  empty(): unknown;
  readonly stream: StreamRenderer;
  error(error: JsonRpcErrorObject): JsonRpcErrorObject;
}
