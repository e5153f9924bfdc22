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
export * from "./errors.js";
export type { BackoffOptions } from "./internal/http/retry-policy.js";
export { backoffDelay } from "./internal/http/retry-policy.js";
export type { A2AClientOptions, FetchLike, RequestOptions, RetryInfo, TokenSource } from "./options.js";
export type { TaskFinishedEvent, TaskSnapshotEvent, TaskStreamEvent, TaskUpdateEvent } from "./stream/events.js";
export { TaskStream } from "./stream/task-stream.js";
