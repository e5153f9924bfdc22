// The public surface of @a2a-partner/a2a-client, name by name. Anything not listed here is internal
// (see src/internal/) and may change in any release; api/a2a-client.api.md is the reviewed report of it.

// The wire types a caller handles, so a client user needs no direct dependency on the core.
export type {
  AgentCard,
  Artifact,
  Message,
  Part,
  Task,
  TaskArtifactUpdateEvent,
  TaskState,
  TaskStatus,
  TaskStatusUpdateEvent,
  TaskUpdateResult,
  TerminalTaskState,
} from "@a2a-partner/a2a-core";
export { isTerminalState } from "@a2a-partner/a2a-core";
export type { GetTaskOptions, MessageInput, SendStreamingMessageInput, SubscribeOptions } from "./client.js";
export { A2AClient } from "./client.js";
export { AGENT_CARD_PATH, ENDPOINT_PATH } from "./discovery.js";
// Protocol errors (one class per JSON-RPC code, from the core) and the client's own errors, from one place.
export {
  A2AError,
  ERROR_CODES,
  InternalError,
  InvalidParamsError,
  InvalidRequestError,
  isA2AError,
  MethodNotFoundError,
  ParseError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
} from "@a2a-partner/a2a-core";
export {
  A2AClientError,
  A2AHttpError,
  APIConnectionError,
  APITimeoutError,
  APIUserAbortError,
  AuthenticationError,
  BadRequestError,
  InvalidResponseError,
  isA2AClientError,
  isA2AHttpError,
  NotFoundError,
  PayloadTooLargeError,
  PermissionError,
  RateLimitError,
  ServerError,
  UntrustedEndpointError,
} from "./errors.js";
export type { A2AClientOptions, FetchLike, RequestOptions, RetryInfo, TokenSource } from "./options.js";
export type { TaskFinishedEvent, TaskSnapshotEvent, TaskStreamEvent, TaskUpdateEvent } from "./stream/events.js";
export { TaskStream } from "./stream/task-stream.js";
