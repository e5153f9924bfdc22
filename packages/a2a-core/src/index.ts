export type { FetchHandler } from "./adapters/fetch.js";
export { toFetchHandler } from "./adapters/fetch.js";
export * from "./errors.js";
export type * from "./executor/task-executor.js";
export type { A2AHandler, A2AHandlerRequest } from "./handler/create-handler.js";
export { createA2AHandler } from "./handler/create-handler.js";
export type * from "./handler/options.js";
export type { RateDecision, RateLimiter, TokenBucketOptions } from "./handler/rate-limiter.js";
export { TokenBucketRateLimiter } from "./handler/rate-limiter.js";
export type { A2AHandlerResponse, A2AJsonResponse, A2AStreamResponse, SseSink } from "./handler/response.js";
export { ORPHANED_REASON, SHUTDOWN_REASON } from "./internal/handler/task-runner.js";
export { textOfMessage } from "./internal/handler/text-of-message.js";
export * from "./internal/jsonrpc/codec.js";
export { A2A_LIMITS, type A2ALimits } from "./limits.js";
export * from "./methods.js";
export * from "./schemas/a2a.js";
export * from "./schemas/agent-card.js";
export * from "./schemas/jsonrpc.js";
export * from "./schemas/params.js";
export type { DecodedSseEvent, DecodeSseOptions, SseDecodeErrorReason } from "./sse/decoder.js";
export { DEFAULT_MAX_EVENT_BYTES, decodeSseStream, isSseDecodeError, SseDecodeError } from "./sse/decoder.js";
export type { SseFrame } from "./sse/encoder.js";
export { encodeJsonSseFrame, encodeSseComment, encodeSseFrame } from "./sse/encoder.js";
export * from "./sse/event-names.js";
export { applyTaskEvent } from "./stores/apply-task-event.js";
export type { EventLog, NumberedAppend, TaskChangeListener } from "./stores/event-log.js";
export { checkNumberedAppend } from "./stores/event-log.js";
export type { CreateOrGetResult, IdempotencyStore } from "./stores/idempotency-store.js";
export type { InMemoryStores } from "./stores/in-memory.js";
export {
  createInMemoryStores,
  InMemoryEventLog,
  InMemoryIdempotencyStore,
  InMemoryTaskStore,
} from "./stores/in-memory.js";
export type { TaskStore } from "./stores/task-store.js";
export type * from "./stores/types.js";
