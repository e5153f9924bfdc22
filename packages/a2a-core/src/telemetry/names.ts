/**
 * The one table of what the handler reports through OpenTelemetry: instrumentation scope, span names,
 * metric names and attribute keys. docs/operations.md lists them for operators; keep the two in step.
 */
export const INSTRUMENTATION_SCOPE = "@a2a-partner/a2a-core";

export const SPAN = {
  /** Before the method is known (refused, undecodable); renamed to the canonical method once it is. */
  request: "a2a.request",
  /** An SSE stream, from its first frame to its end. */
  stream: "a2a.stream",
  /** A task this process runs, from its start to its `finished` event. */
  task: "a2a.task",
  /** Span event on the task span: one of its events became durable. */
  taskEvent: "a2a.task.event",
} as const;

export const METRIC = {
  /** Histogram (s): every request, by method and JSON-RPC error code; its count is the request count. */
  requestDuration: "a2a.server.request.duration",
  /** Counter: requests answered with a JSON-RPC error, by method, code and HTTP status. */
  errors: "a2a.server.errors",
  /** Counter: requests refused by a limit, by reason. */
  refusals: "a2a.server.refusals",
  /** UpDownCounter: SSE streams open now, by method. */
  openStreams: "a2a.server.open_streams",
  /** Counter: task events made durable, by event name. */
  eventsAppended: "a2a.events.appended",
  /** Counter: tasks created. */
  tasksStarted: "a2a.tasks.started",
  /** Counter: tasks ended, by final state. */
  tasksEnded: "a2a.tasks.ended",
  /** Histogram (s): creation to end of a task, by final state. */
  taskDuration: "a2a.task.duration",
  /** Counter: push requests sent to receivers (every attempt, whatever its outcome). */
  pushAttempts: "a2a.push.attempts",
  /** Counter: push deliveries a receiver answered with 2xx. */
  pushDelivered: "a2a.push.delivered",
  /** Counter: failed push attempts, by `reason` (timeout, network, status, signing). */
  pushFailures: "a2a.push.failures",
  /** Counter: push deliveries given up past the horizon. */
  pushGivenUp: "a2a.push.given_up",
  /** Histogram (ms): from an event becoming durable to its receiver's 2xx answer. */
  pushLag: "a2a.push.lag",
} as const;

export const ATTR = {
  rpcSystem: "rpc.system",
  rpcMethod: "rpc.method",
  rpcMethodOriginal: "rpc.method_original",
  rpcJsonrpcVersion: "rpc.jsonrpc.version",
  rpcJsonrpcRequestId: "rpc.jsonrpc.request_id",
  rpcJsonrpcErrorCode: "rpc.jsonrpc.error_code",
  rpcJsonrpcErrorMessage: "rpc.jsonrpc.error_message",
  httpStatus: "http.response.status_code",
  errorType: "error.type",
  taskId: "a2a.task.id",
  taskState: "a2a.task.state",
  storeId: "a2a.store_id",
  eventName: "a2a.event.name",
  eventSeq: "a2a.event.seq",
  refusalReason: "a2a.refusal.reason",
  streamStartSeq: "a2a.stream.start_seq",
  streamLastSeq: "a2a.stream.last_seq",
  streamEndReason: "a2a.stream.end_reason",
  /** Why a push attempt failed (`a2a.push.failures`). */
  pushFailureReason: "reason",
} as const;

/** The `rpc.method` of a request whose method is unknown (refused before decoding, or not a method). */
export const OTHER_METHOD = "_OTHER";

/** Request latencies: half a millisecond to ten seconds. */
export const REQUEST_SECONDS_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Push delivery lag: a millisecond (a receiver beside the server) to the 24 h horizon. */
export const PUSH_LAG_MS_BUCKETS = [
  1, 2, 5, 10, 25, 50, 100, 250, 500, 1_000, 2_500, 5_000, 10_000, 30_000, 60_000, 300_000, 900_000, 3_600_000,
  21_600_000, 86_400_000,
];

/** Task lifetimes: tens of milliseconds (a fast executor) to an hour. */
export const TASK_SECONDS_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600];
