import type { DescMessage } from "@bufbuild/protobuf";
import { type ServerWritableStream, status } from "@grpc/grpc-js";
import { streamMessages } from "../../bindings/grpc/stream-frames.js";
import type { SseSink } from "../../ports/handler-response.js";

/**
 * A task stream's sink on a server-streaming call. Its backlog is the bytes handed to grpc-js and not
 * yet taken by HTTP/2 (each write's callback comes when its frame left under flow control), so a slow
 * reader is bounded and dropped exactly as an SSE one is; it resubscribes with `last-event-id`.
 */
export class GrpcStreamSink implements SseSink {
  private pending = 0;
  private done = false;

  constructor(
    private readonly call: ServerWritableStream<Buffer, Buffer>,
    private readonly output: DescMessage,
  ) {}

  get backlog(): number {
    return this.pending;
  }

  write(chunk: string): void {
    if (this.done || this.call.cancelled) return;
    let messages: readonly Uint8Array[];
    try {
      messages = streamMessages(this.output, chunk);
    } catch (error) {
      this.fail(status.INTERNAL, `An event could not be encoded: ${error instanceof Error ? error.message : error}`);
      return;
    }
    for (const message of messages) {
      const size = message.byteLength;
      this.pending += size;
      this.call.write(Buffer.from(message.buffer, message.byteOffset, size), () => {
        this.pending -= size;
      });
    }
  }

  end(): void {
    if (this.done) return;
    this.done = true;
    if (!this.call.cancelled) this.call.end();
  }

  abort(): void {
    this.fail(status.UNAVAILABLE, "The stream fell too far behind; resubscribe with last-event-id");
  }

  private fail(code: status, details: string): void {
    if (this.done) return;
    this.done = true;
    // grpc-js ends the call with this status once what was written has gone.
    if (!this.call.cancelled) this.call.emit("error", { code, details });
  }
}
