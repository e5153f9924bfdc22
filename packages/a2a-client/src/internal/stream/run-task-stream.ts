import { type DecodedSseEvent, decodeSseStream, isSseDecodeError } from "@a2a-partner/a2a-core";
import { A2AHttpError, APIConnectionError, InvalidResponseError } from "../../errors.js";
import { parseFrame, seqOf, type TaskStreamEvent } from "../../stream/events.js";
import type { OpenStream, Transport } from "../http/transport.js";
import { EventCursor } from "./cursor.js";

/** How a task stream (re)connects. */
export interface StreamConnector {
  /** Sends the task start again; `retry` is true for every send after the first. Absent for subscriptions. */
  start?(retry: boolean, signal: AbortSignal): Promise<OpenStream>;
  /** Reattaches with SubscribeToTask, replaying after `lastEventId` when given. */
  subscribe(taskId: string, lastEventId: string | undefined, signal: AbortSignal): Promise<OpenStream>;
}

export interface RunTaskStreamOptions {
  connector: StreamConnector;
  transport: Pick<Transport, "wait" | "backoff" | "notifyRetry">;
  /** Known for a subscription; learnt from the `task` event for a start. */
  taskId?: string;
  /** The caller's own `Last-Event-ID` for a subscription: events up to it are not delivered. */
  lastEventId?: string;
  /** Reattaches allowed after drops with no new event in between. */
  maxResumeAttempts: number;
  idleTimeoutMs: number;
  maxEventBytes?: number;
  signal: AbortSignal;
  /** Every event read; `fresh` is false for replays the caller already saw (they must not be shown again). */
  onEvent(event: TaskStreamEvent, fresh: boolean): void;
  /** Decoder of the byte stream; a2a-core's by default. */
  decode?: (
    stream: ReadableStream<Uint8Array>,
    options: { maxEventBytes?: number; signal?: AbortSignal },
  ) => AsyncIterable<DecodedSseEvent>;
}

/**
 * Follows one task until its `finished` event (or, for a start the agent answered with a message, until
 * that message), across drops: once the task id is known it reattaches with
 * SubscribeToTask and `Last-Event-ID`, before that it resends the start (same messageId, so the server
 * returns the same task). Waits with exponential backoff between reattaches; gives up after
 * `maxResumeAttempts` reattaches in a row that brought nothing new. Resolves after `finished`.
 */
export async function runTaskStream(options: RunTaskStreamOptions): Promise<void> {
  const { connector, transport, signal } = options;
  const decode = options.decode ?? decodeSseStream;
  const cursor = new EventCursor(seqOf(options.lastEventId) ?? 0);
  let taskId = options.taskId;
  let connects = 0;
  let failures = 0;

  for (;;) {
    let progressed = false;
    let drop: Error;
    try {
      const opened = await connect();
      connects++;
      const { body, attempt, dialect } = opened;
      try {
        attempt.startTimer(options.idleTimeoutMs, "idle");
        // Any byte, keep-alive comments included, proves the connection alive.
        const watched = body.pipeThrough(
          new TransformStream<Uint8Array, Uint8Array>({
            transform(chunk, controller) {
              attempt.startTimer(options.idleTimeoutMs, "idle");
              controller.enqueue(chunk);
            },
          }),
        );
        const frames = decode(watched, { signal: attempt.signal, ...maxBytes(options.maxEventBytes) });
        try {
          for await (const raw of frames) {
            // Each connection is read in the dialect it was opened in; event names and ids are the same in both.
            const event = parseFrame(raw, dialect);
            if (event.type === "skip") continue;
            // The agent answered the start with a message: the stream's only event, no task to follow.
            // Once a task is known a message frame is not a reply, and is skipped like other unknown frames.
            if (event.type === "message") {
              if (taskId !== undefined || !connector.start) continue;
              options.onEvent(event, true);
              return;
            }
            if (event.type === "task") taskId ??= event.task.id;
            const fresh = cursor.admit(event.eventId);
            if (fresh) progressed = true;
            options.onEvent(event, fresh);
            // `finished` is the end of the task; the trailing `final` frame is not waited for.
            if (event.type === "finished") return;
          }
        } catch (error) {
          if (isSseDecodeError(error)) throw new InvalidResponseError(error.message, { cause: error });
          throw attempt.toError(error);
        }
        drop = new APIConnectionError("The stream ended before the task finished");
      } finally {
        // Leaving the decoder early has already cancelled the body, which releases the connection.
        attempt.dispose();
      }
    } catch (error) {
      if (!isResumable(error) || connects === 0) throw error;
      drop = error as Error;
    }

    if (progressed) failures = 0;
    failures++;
    if (failures > options.maxResumeAttempts) {
      const tries = options.maxResumeAttempts;
      throw new APIConnectionError(
        tries === 0
          ? `The stream dropped before the task finished: ${drop.message}`
          : `The stream dropped and ${tries} reattach attempt${tries === 1 ? "" : "s"} did not get it back: ${drop.message}`,
        { cause: drop },
      );
    }
    const delayMs = transport.backoff(failures - 1);
    transport.notifyRetry({
      kind: "resume",
      attempt: failures,
      maxAttempts: options.maxResumeAttempts,
      delayMs,
      error: drop,
    });
    await transport.wait(delayMs, signal);
  }

  function connect(): Promise<OpenStream> {
    if (taskId === undefined) {
      if (!connector.start) throw new TypeError("a task stream needs a task id or a way to start the task");
      return connector.start(connects > 0, signal);
    }
    // A reattach asks for what came after the newest event seen. Before any numeric id was seen, a stream
    // that started the task asks for everything ("0"); a subscription keeps the caller's own choice.
    const lastEventId =
      cursor.lastSeq > 0 ? String(cursor.lastSeq) : (options.lastEventId ?? (connector.start ? "0" : undefined));
    return connector.subscribe(taskId, lastEventId, signal);
  }
}

/** A drop or a server that is briefly unavailable: worth a reattach. Protocol and auth errors are not. */
function isResumable(error: unknown): boolean {
  if (error instanceof APIConnectionError) return true;
  return error instanceof A2AHttpError && (error.status === 429 || error.status >= 500);
}

function maxBytes(value: number | undefined): { maxEventBytes?: number } {
  return value === undefined ? {} : { maxEventBytes: value };
}
