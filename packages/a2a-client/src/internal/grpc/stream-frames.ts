import { EVENT_SEQ_KEY, type GrpcMethodWire } from "@a2a-partner/a2a-core/grpc";
import type { ClientReadableStream } from "@grpc/grpc-js";

const TERMINAL = new Set(["TASK_STATE_COMPLETED", "TASK_STATE_CANCELED", "TASK_STATE_FAILED", "TASK_STATE_REJECTED"]);
const PAYLOADS = ["task", "message", "statusUpdate", "artifactUpdate"] as const;

/**
 * A gRPC stream of `StreamResponse` messages as the SSE frames an HTTP+JSON stream of the same task would
 * carry (`id:` the event's sequence number, `event:` its name, `data:` the bare StreamResponse), so one
 * reader follows, deduplicates and resumes the streams of every binding. The sequence number travels in
 * the payload's `metadata` under EVENT_SEQ_KEY (taken out again here); the event name follows from the
 * payload: the `task` first, a terminal status update is `finished`, the task after it `final`.
 */
export function sseFramesOf(
  stream: ClientReadableStream<Buffer>,
  wire: GrpcMethodWire,
  errorOf: (error: unknown) => Error,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let finished = false;
  let done = false;
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        stream.on("data", (bytes: Buffer) => {
          if (done) return;
          try {
            controller.enqueue(encoder.encode(frameOf(wire.decodeAnswer(bytes))));
          } catch (error) {
            done = true;
            stream.cancel();
            controller.error(error);
            return;
          }
          // Backpressure: grpc-js stops reading (and HTTP/2 flow control stops the server) until pulled.
          if ((controller.desiredSize ?? 1) <= 0) stream.pause();
        });
        stream.on("end", () => {
          if (done) return;
          done = true;
          controller.close();
        });
        stream.on("error", (error: unknown) => {
          if (done) return;
          done = true;
          controller.error(errorOf(error));
        });
      },
      pull() {
        stream.resume();
      },
      cancel() {
        done = true;
        stream.cancel();
      },
    },
    { highWaterMark: 8 },
  );

  function frameOf(json: unknown): string {
    const response = (json ?? {}) as Record<string, Record<string, unknown> | undefined>;
    const name = PAYLOADS.find((key) => response[key] !== undefined);
    const payload = name ? response[name] : undefined;
    let seq: unknown;
    if (payload?.metadata && typeof payload.metadata === "object") {
      const { [EVENT_SEQ_KEY]: carried, ...rest } = payload.metadata as Record<string, unknown>;
      seq = carried;
      if (Object.keys(rest).length === 0) delete payload.metadata;
      else payload.metadata = rest;
    }
    const event = eventName(name, payload);
    const id = typeof seq === "number" && Number.isInteger(seq) ? `id: ${seq}\n` : "";
    return `${id}event: ${event}\ndata: ${JSON.stringify(response)}\n\n`;
  }

  function eventName(name: (typeof PAYLOADS)[number] | undefined, payload: Record<string, unknown> | undefined) {
    if (name === "task") return finished ? "final" : "task";
    if (name === "statusUpdate") {
      const state = (payload?.status as { state?: unknown } | undefined)?.state;
      if (typeof state === "string" && TERMINAL.has(state)) {
        finished = true;
        return "finished";
      }
      return "update";
    }
    if (name === "artifactUpdate") return "update";
    return name ?? "unknown";
  }
}
