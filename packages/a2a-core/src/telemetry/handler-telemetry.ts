import type { Attributes, Span, SpanOptions, TextMapGetter, Tracer } from "@opentelemetry/api";
import type { A2AHandlerResponse, A2AJsonResponse } from "../ports/handler-response.js";
import type { EndedStream, StreamEndReason } from "../ports/stream-end.js";
import type { StoredTaskEvent, TaskRecord } from "../ports/task-records.js";
import type { HeaderReader } from "../protocol/header-reader.js";
import { stateLabel, type TaskState } from "../protocol/schemas/a2a.js";
import { createInstruments, type Instruments } from "./handler-instruments.js";
import { MeterInstruments } from "./meter-instruments.js";
import { ATTR, INSTRUMENTATION_SCOPE, OTHER_METHOD, SPAN } from "./names.js";
import { type OtelApi, otelApi } from "./otel-api.js";

/** What telemetry records of a decoded request, whichever binding decoded it. */
export interface DecodedCall {
  /** The current method name. */
  method: string;
  /** The name as sent (current name or alias). */
  wireMethod: string;
  id: string | number;
}

/** Why a request was refused before it was answered on its merits. */
export type RefusalReason =
  | "rate_limit"
  | "stream_cap"
  | "in_flight_limit"
  | "caller_in_flight_limit"
  | "shutting_down";

/** One request as telemetry follows it: its span, when it began, and its method once decoded. */
export class RequestTrace {
  method: string = OTHER_METHOD;
  constructor(
    readonly span: Span | undefined,
    readonly startedAt: number,
  ) {}
}

/** Shared by every request when `@opentelemetry/api` is not installed: nothing to follow. */
const UNTRACED = new RequestTrace(undefined, 0);

const HEADER_GETTER: TextMapGetter<HeaderReader> = {
  get: (carrier, key) => carrier.get(key) ?? undefined,
  keys: () => [],
};

/**
 * The handler's traces and metrics, through `@opentelemetry/api` only: without the package, or without
 * an SDK registered, every method is a no-op or the API's own. Built for the hot path: instruments are
 * resolved once (again only if the application registers another MeterProvider), attribute sets are made
 * once per method, code or state and reused, a request costs its span and one histogram measurement, and
 * span attributes are computed only when the span records.
 */
export class HandlerTelemetry {
  private readonly api: OtelApi | undefined;
  private readonly tracer: Tracer | undefined;
  private readonly instruments: MeterInstruments<Instruments> | undefined;
  private readonly requestSpanOptions: SpanOptions;
  private readonly internalSpanOptions: SpanOptions;
  private readonly byMethod = new Map<string, Attributes>();
  private readonly byError = new Map<string, Attributes>();
  private readonly byState = new Map<string, Attributes>();
  private readonly byEvent = new Map<string, Attributes>();
  private readonly byRefusal = new Map<string, Attributes>();

  constructor(api: OtelApi | undefined = otelApi()) {
    this.api = api;
    this.tracer = api?.trace.getTracer(INSTRUMENTATION_SCOPE);
    // A MeterProvider registered after the handler was made still gets the handler's measurements.
    this.instruments = api && new MeterInstruments(api, INSTRUMENTATION_SCOPE, createInstruments);
    this.requestSpanOptions = {
      kind: api?.SpanKind.SERVER,
      attributes: { [ATTR.rpcSystem]: "jsonrpc", [ATTR.rpcJsonrpcVersion]: "2.0" },
    };
    this.internalSpanOptions = { kind: api?.SpanKind.INTERNAL };
  }

  /** Starts a request's span: a child of the active span, else of the caller's `traceparent`, else a root. */
  startRequest(headers: HeaderReader): RequestTrace {
    const api = this.api;
    if (!api || !this.tracer) return UNTRACED;
    const active = api.context.active();
    const parent = api.trace.getSpan(active) ? active : api.propagation.extract(active, headers, HEADER_GETTER);
    return new RequestTrace(
      this.kept(this.tracer.startSpan(SPAN.request, this.requestSpanOptions, parent)),
      performance.now(),
    );
  }

  /** The request decoded: its span is named for the canonical method and says which name was sent. */
  decoded(trace: RequestTrace, request: DecodedCall): void {
    if (trace === UNTRACED) return;
    trace.method = request.method;
    const span = trace.span;
    if (!span?.isRecording()) return;
    span.updateName(request.method);
    span.setAttribute(ATTR.rpcMethod, request.method);
    span.setAttribute(ATTR.rpcMethodOriginal, request.wireMethod);
    span.setAttribute(ATTR.rpcJsonrpcRequestId, String(request.id));
  }

  /** The task a request is about. */
  taskOf(trace: RequestTrace, taskId: string): void {
    trace.span?.setAttribute(ATTR.taskId, taskId);
  }

  refused(reason: RefusalReason): void {
    if (!this.api) return;
    this.metrics().refusals.add(1, this.attributes(this.byRefusal, reason, ATTR.refusalReason, reason));
  }

  /** The answer is ready (for a stream: its headers): one duration measurement, and the span ends. */
  endRequest(trace: RequestTrace, response: A2AHandlerResponse): void {
    if (trace === UNTRACED) return;
    const seconds = (performance.now() - trace.startedAt) / 1000;
    const error = response.kind === "json" ? errorOf(response) : undefined;
    const metrics = this.metrics();
    if (error === undefined) {
      metrics.requestDuration.record(
        seconds,
        this.attributes(this.byMethod, trace.method, ATTR.rpcMethod, trace.method),
      );
    } else {
      const attributes = this.errorAttributes(trace.method, error.code);
      metrics.requestDuration.record(seconds, attributes);
      metrics.errors.add(1, this.errorAttributes(trace.method, error.code, response.status));
    }
    const span = trace.span;
    if (!span) return;
    if (span.isRecording()) {
      span.setAttribute(ATTR.httpStatus, response.status);
      if (error !== undefined) {
        span.setAttributes({
          [ATTR.rpcJsonrpcErrorCode]: error.code,
          [ATTR.rpcJsonrpcErrorMessage]: error.message,
          [ATTR.errorType]: String(error.code),
        });
        // Only a failure of the server is an error of its span; a refused request is the caller's.
        if (response.status >= 500)
          span.setStatus({ code: this.api?.SpanStatusCode.ERROR ?? 2, message: error.message });
      }
    }
    span.end();
  }

  /** A stream starts writing: its span (a child of the request's) and the open-streams count. */
  startStream(trace: RequestTrace, taskId: string, cursor: number): Span | undefined {
    const api = this.api;
    if (trace === UNTRACED || !api || !this.tracer) return undefined;
    this.metrics().openStreams.add(1, this.attributes(this.byMethod, trace.method, ATTR.rpcMethod, trace.method));
    const parent = trace.span ? api.trace.setSpan(api.context.active(), trace.span) : api.context.active();
    const span = this.tracer.startSpan(SPAN.stream, this.internalSpanOptions, parent);
    if (span.isRecording()) {
      span.setAttributes({ [ATTR.rpcMethod]: trace.method, [ATTR.taskId]: taskId, [ATTR.streamStartSeq]: cursor });
    }
    return this.kept(span);
  }

  /** A stream ended: counted out (as `startStream` counted it in, span or not), and its span ends. */
  endStream(trace: RequestTrace, span: Span | undefined, subscription: EndedStream): void {
    if (trace === UNTRACED || !this.api || !this.tracer) return;
    this.metrics().openStreams.add(-1, this.attributes(this.byMethod, trace.method, ATTR.rpcMethod, trace.method));
    if (!span) return;
    if (span.isRecording()) {
      const reason: StreamEndReason = subscription.endReason ?? "closed";
      span.setAttributes({ [ATTR.streamEndReason]: reason, [ATTR.streamLastSeq]: subscription.cursor });
    }
    span.end();
  }

  /**
   * A task was created and this process runs it: counted, and its span (a child of the request that
   * started it) lasts until the runner lets go of it. The `task` event (seq 1) is counted here too.
   */
  startTask(trace: RequestTrace | undefined, record: TaskRecord): Span | undefined {
    const api = this.api;
    if (!api || !this.tracer) return undefined;
    const metrics = this.metrics();
    metrics.tasksStarted.add(1);
    metrics.eventsAppended.add(1, this.attributes(this.byEvent, "task", ATTR.eventName, "task"));
    const parent = trace?.span ? api.trace.setSpan(api.context.active(), trace.span) : api.context.active();
    const span = this.tracer.startSpan(SPAN.task, this.internalSpanOptions, parent);
    if (span.isRecording()) {
      const { storeId } = record.task.metadata;
      span.setAttributes({
        [ATTR.taskId]: record.task.id,
        ...(storeId === undefined ? {} : { [ATTR.storeId]: storeId }),
      });
    }
    return this.kept(span);
  }

  /**
   * Runs `work` with `span` active, so what it traces and logs nests under it: a task's executor, and the
   * store writes of a request (which are otherwise answered with plain calls, no context switch).
   */
  within<T>(span: Span | undefined, work: () => T): T {
    const api = this.api;
    if (!api || !span) return work();
    return api.context.with(api.trace.setSpan(api.context.active(), span), work);
  }

  /** Events became durable: counted, and marked on the task's span when there is one. */
  eventsStored(events: readonly StoredTaskEvent[], span: Span | undefined): void {
    if (!this.api) return;
    const counter = this.metrics().eventsAppended;
    const recording = span?.isRecording() ?? false;
    for (const event of events) {
      counter.add(1, this.attributes(this.byEvent, event.event, ATTR.eventName, event.event));
      if (recording) span?.addEvent(SPAN.taskEvent, { [ATTR.eventSeq]: event.seq, [ATTR.eventName]: event.event });
    }
  }

  /** A task's `finished` event was stored (by whichever writer won): counted once, with its duration. */
  taskEnded(record: TaskRecord, state: TaskState, endedAtMs: number, span: Span | undefined): void {
    if (!this.api) return;
    // Labelled as before the model was A2A v1.0 ("completed", …): dashboards keep their series.
    const label = stateLabel(state);
    const attributes = this.attributes(this.byState, label, ATTR.taskState, label);
    const metrics = this.metrics();
    metrics.tasksEnded.add(1, attributes);
    const startedAt = Date.parse(record.createdAt);
    if (Number.isFinite(startedAt)) metrics.taskDuration.record(Math.max(0, endedAtMs - startedAt) / 1000, attributes);
    span?.setAttribute(ATTR.taskState, label);
  }

  /** `trace_id` / `span_id` for a log line about this request (the fields pino's OpenTelemetry mixin uses). */
  logFields(trace: RequestTrace): Record<string, string> {
    const context = trace.span?.spanContext();
    if (!context || !this.api?.isSpanContextValid(context)) return {};
    return { trace_id: context.traceId, span_id: context.spanId };
  }

  /**
   * A span worth holding: one with a valid context (an SDK made it, or it carries the caller's trace).
   * Without an SDK the API hands out a fresh placeholder per call; held by every open stream and running
   * task, those added up to ~0.1 KiB each for nothing.
   */
  private kept(span: Span): Span | undefined {
    return this.api?.isSpanContextValid(span.spanContext()) ? span : undefined;
  }

  /** Called only with the API present (every caller checks `this.api` first). */
  private metrics(): Instruments {
    return (this.instruments as MeterInstruments<Instruments>).get();
  }

  /** One attribute set per value, made once and reused for every measurement. */
  private attributes(cache: Map<string, Attributes>, value: string, key: string, attribute: string): Attributes {
    let attributes = cache.get(value);
    if (!attributes) {
      attributes = Object.freeze({ [key]: attribute });
      cache.set(value, attributes);
    }
    return attributes;
  }

  private errorAttributes(method: string, code: number, status?: number): Attributes {
    const key = status === undefined ? `${method} ${code}` : `${method} ${code} ${status}`;
    let attributes = this.byError.get(key);
    if (!attributes) {
      attributes = Object.freeze({
        [ATTR.rpcMethod]: method,
        [ATTR.rpcJsonrpcErrorCode]: code,
        ...(status === undefined ? {} : { [ATTR.httpStatus]: status }),
      });
      this.byError.set(key, attributes);
    }
    return attributes;
  }
}

/** An answer's error as the metrics name it: the JSON-RPC error, or an HTTP+JSON status with its A2A code. */
function errorOf(response: A2AJsonResponse): { code: number; message: string } | undefined {
  const body = response.body;
  if (!("error" in body)) return undefined;
  const error = body.error as { code: number; message: string };
  return response.errorCode === undefined ? error : { code: response.errorCode, message: error.message };
}
