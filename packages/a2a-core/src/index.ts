// The public surface of @a2a-partner/a2a-core, name by name. Anything not listed here is internal
// (see src/internal/) and may change in any release; api/a2a-core.api.md is the reviewed report of it.

export type { FetchHandler } from "./adapters/fetch.js";
export { toFetchHandler } from "./adapters/fetch.js";
export { createA2AHandler } from "./assembly/create-handler.js";
export type { A2AHandlerOptions, A2AMethodOptions } from "./assembly/handler-options.js";
export {
  createPushDispatcher,
  type PushDispatcherSetup,
  type StandalonePushDispatcher,
} from "./assembly/push-assembly.js";
export type { A2APushOptions } from "./assembly/push-options.js";
export { environmentExecutor } from "./environments/environment-executor.js";
export type { EnvironmentExecutor, EnvironmentTaskContext } from "./environments/environment-executor-types.js";
export type { A2APushStores, A2AStores } from "./ports/a2a-stores.js";
export {
  type AppendDependencies,
  DependencyFailedError,
  dependenciesSucceeded,
  isDependencyFailed,
} from "./ports/append-dependencies.js";
export { applyTaskEvent } from "./ports/apply-task-event.js";
export type { Authenticate, AuthOutcome } from "./ports/authenticate.js";
export type { CarriedEvents, EventLog, NumberedAppend, TaskChangeListener, WatchOptions } from "./ports/event-log.js";
export { checkNumberedAppend } from "./ports/event-log.js";
export type { A2AHandler, A2AHandlerRequest } from "./ports/handler.js";
export type {
  A2AHandlerResponse,
  A2AJsonResponse,
  A2AStreamResponse,
  HttpJsonBody,
  SseSink,
} from "./ports/handler-response.js";
export type { CreateOrGetResult, IdempotencyStore } from "./ports/idempotency-store.js";
export type { Logger } from "./ports/logger.js";
export type { PushAuthentication, PushConfig, PushConfigStore, PutPushConfigResult } from "./ports/push-configs.js";
export type {
  HandedPushDelivery,
  PushClaimOptions,
  PushDelivery,
  PushDeliveryQueue,
} from "./ports/push-deliveries.js";
export { pushReceiverOf } from "./ports/push-deliveries.js";
export type {
  AgentReply,
  ArtifactUpdate,
  ExecutorUpdate,
  ProgressState,
  ReplyContext,
  StartContext,
  StartPreparation,
  TaskExecutionContext,
  TaskExecutor,
  TaskOutcome,
} from "./ports/task-executor.js";
export type { TaskListCursor, TaskListPage, TaskListQuery } from "./ports/task-list.js";
export { pageOf as pageOfTasks } from "./ports/task-list.js";
export type { NewLease, NewTask, NewTaskEvent, StoredTaskEvent, TaskLease, TaskRecord } from "./ports/task-records.js";
export type { TaskStore } from "./ports/task-store.js";
export {
  type AgentCardResponse,
  type AgentCardResponseOptions,
  agentCardResponder,
} from "./protocol/card/card-response.js";
export {
  type AgentCardJwk,
  type AgentCardKeySet,
  AgentCardSignature,
  type AgentCardSigner,
  canonicalAgentCard,
  signAgentCard,
  verifyAgentCardSignature,
} from "./protocol/card/card-signature.js";
export type { ProtocolVersion, RequestedVersion } from "./protocol/dialect/protocol-version.js";
export {
  A2A_VERSION_HEADER,
  parseProtocolVersion,
  requestedProtocolVersion,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "./protocol/dialect/protocol-version.js";
export {
  A2AError,
  ContentTypeNotSupportedError,
  ERROR_CODES,
  type ErrorCode,
  type ErrorCodeName,
  fromJsonRpcError,
  InternalError,
  InvalidParamsError,
  type InvalidParamsIssue,
  InvalidRequestError,
  isA2AError,
  MethodNotFoundError,
  ParseError,
  PushNotificationNotSupportedError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
  VersionNotSupportedError,
} from "./protocol/errors.js";
export type { HeaderReader, RequestHeaders } from "./protocol/header-reader.js";
export { A2A_LIMITS, type A2ALimits } from "./protocol/limits.js";
export type { MethodName } from "./protocol/method-table.js";
export {
  Artifact,
  type InterruptedTaskState,
  isInterruptedState,
  isTerminalState,
  Message,
  Part,
  Role,
  type StreamResponse,
  stateLabel,
  TASK_STATES,
  Task,
  TaskArtifactUpdateEvent,
  type TaskEventResult,
  TaskMetadata,
  TaskState,
  TaskStatus,
  TaskStatusUpdateEvent,
  type TaskUpdateResult,
  TERMINAL_TASK_STATES,
  TerminalTaskState,
} from "./protocol/schemas/a2a.js";
export { AgentCard, AgentCardV1, agentCardForRequest, buildAgentCardV1 } from "./protocol/schemas/agent-card.js";
export { type AgentCardInput, AgentSkill } from "./protocol/schemas/agent-card-input.js";
export {
  JsonRpcErrorObject,
  JsonRpcErrorResponse,
  JsonRpcId,
  JsonRpcRequest,
  JsonRpcResponse,
  JsonRpcSuccessResponse,
} from "./protocol/schemas/jsonrpc.js";
export { ListedTask } from "./protocol/schemas/list-tasks.js";
export {
  CancelTaskParams,
  GetTaskParams,
  LIST_TASKS_PAGE_SIZE,
  ListTasksParams,
  SendMessageParams,
  SendStreamingMessageParams,
  SubscribeToTaskParams,
  TaskIdParams,
} from "./protocol/schemas/params.js";
export {
  CreatePushConfigParams,
  DeletePushConfigParams,
  GetPushConfigParams,
  ListPushConfigsParams,
  PushConfigInput,
} from "./protocol/schemas/push-config.js";
export {
  DEFAULT_MAX_EVENT_BYTES,
  type DecodedSseEvent,
  type DecodeSseOptions,
  decodeSseStream,
  isSseDecodeError,
  SseDecodeError,
  type SseDecodeErrorReason,
} from "./protocol/sse/decoder.js";
export { encodeJsonSseFrame, encodeSseComment, encodeSseFrame, type SseFrame } from "./protocol/sse/encoder.js";
export {
  isStreamEventName,
  type LoggedEventName,
  STREAM_EVENTS,
  type StreamEventName,
} from "./protocol/sse/event-names.js";
export { AgentCardV03, buildAgentCardV03 } from "./protocol/v0_3/agent-card.js";
export type { RateDecision, RateLimiter, TokenBucketOptions } from "./runtime/admission/rate-limiter.js";
export { TokenBucketRateLimiter } from "./runtime/admission/rate-limiter.js";
export { type PeriodicJob, type PeriodicJobOptions, startPeriodicJob } from "./runtime/periodic-job.js";
export { type PushDestinationOptions, pushDestinationCheck } from "./runtime/push/destination-check.js";
export { AllowedHostsError, parseAllowedHosts } from "./runtime/push/parse-allowed-hosts.js";
export type { PushDestinationCheck } from "./runtime/push/push-side.js";
export { ORPHANED_REASON, SHUTDOWN_REASON } from "./runtime/runner/task-end-reasons.js";
export {
  createInMemoryStores,
  InMemoryEventLog,
  InMemoryIdempotencyStore,
  type InMemoryStores,
  InMemoryTaskStore,
} from "./stores/in-memory.js";
export { InMemoryPushConfigStore, InMemoryPushDeliveryQueue } from "./stores/in-memory-push.js";
// For the companion packages (and any library of yours): the OpenTelemetry API if the application has it,
// and instruments that follow the application's MeterProvider.
export { MeterInstruments } from "./telemetry/meter-instruments.js";
export { type OtelApi, otelApi } from "./telemetry/otel-api.js";
export { type PushFailureReason, type PushMeasurements, PushTelemetry } from "./telemetry/push-telemetry.js";
