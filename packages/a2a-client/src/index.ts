// The public surface of @a2a-partner/a2a-client, name by name. Anything not listed here is internal
// (see src/internal/) and may change in any release; api/a2a-client.api.md is the reviewed report of it.

// From the core, so a client user needs no direct dependency on it: the wire types a caller handles and
// the protocol errors (one class per JSON-RPC code), which the client throws as they come off the wire.
export {
  A2AError,
  type AgentCard,
  ERROR_CODES,
  InternalError,
  InvalidParamsError,
  InvalidRequestError,
  isA2AError,
  MethodNotFoundError,
  ParseError,
  PushNotificationNotSupportedError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
} from "@a2a-partner/a2a-core";
export type {
  GetTaskOptions,
  ListTasksOptions,
  ListTasksPage,
  MessageInput,
  SendMessageInput,
  SendMessageResult,
  SendStreamingMessageInput,
  SubscribeOptions,
} from "./client.js";
export { A2AClient } from "./client.js";
export { AGENT_CARD_PATH, ENDPOINT_PATH } from "./discovery.js";
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
  PushVerificationError,
  type PushVerificationFailure,
  RateLimitError,
  ServerError,
  UntrustedEndpointError,
} from "./errors.js";
export {
  type Artifact,
  isTerminalState,
  type ListedTask,
  type Message,
  type Part,
  type Task,
  type TaskArtifactUpdateEvent,
  type TaskState,
  type TaskStatus,
  type TaskStatusUpdateEvent,
  type TaskUpdateResult,
  type TerminalTaskState,
} from "./model.js";
export type {
  A2AClientOptions,
  FetchLike,
  GrpcTransportProvider,
  RequestOptions,
  RetryInfo,
  TokenSource,
} from "./options.js";
export type {
  PushNotificationAuthentication,
  PushNotificationConfigInput,
  TaskPushNotificationConfig,
} from "./push/push-config.js";
export type {
  PushNotification,
  PushNotificationHeaders,
  VerifyPushNotificationInput,
} from "./push/verify-push-notification.js";
export { verifyPushNotification } from "./push/verify-push-notification.js";
export type {
  MessageReplyEvent,
  TaskFinishedEvent,
  TaskSnapshotEvent,
  TaskStreamEvent,
  TaskUpdateEvent,
} from "./stream/events.js";
export { TaskStream } from "./stream/task-stream.js";
