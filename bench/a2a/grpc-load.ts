/**
 * Load generation over A2A's gRPC binding for `pnpm bench:a2a` (the `ours-grpc` and `sdk-grpc` targets):
 * the same three loads as load.ts — first event of a new task over SendStreamingMessage, GetTask
 * requests/s, tasks/s sustained — on @grpc/grpc-js, one channel (HTTP/2 multiplexes the concurrent calls,
 * as a gRPC client does). Requests are encoded and answers decoded with a2a-core's client wire (protobuf-es),
 * so both servers are spoken to in the same bytes.
 */
import { createRequire } from "node:module";
import {
  type FirstEventTimes,
  firstEventTimes,
  type LoadWindow,
  type OpenedStream,
  requestsInWindow,
  type StreamEnd,
  type Throughput,
  tasksInWindow,
} from "./load.ts";

// bench/ is not a workspace package: grpc-js and a2a-core resolve from the client package, which has both.
const require = createRequire(new URL("../../packages/a2a-client/package.json", import.meta.url));
const grpc = require("@grpc/grpc-js") as typeof import("@grpc/grpc-js");
const wire = require("@a2a-partner/a2a-core/grpc") as typeof import("@a2a-partner/a2a-core/grpc");

const TEXT = "Restock aisle 5";
const TERMINAL = new Set(["TASK_STATE_COMPLETED", "TASK_STATE_FAILED", "TASK_STATE_CANCELED", "TASK_STATE_REJECTED"]);

/** A gRPC server under load: its `host:port`, the credential metadata it needs, the store a task names. */
export interface GrpcEndpoint {
  address: string;
  /** e.g. `{ authorization: "Bearer …" }`; `{}` for the SDK's server (no authentication). */
  metadata: Record<string, string>;
  storeId: string;
}

const asBuffer = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
const same = (bytes: Buffer) => bytes;

function methodWire(name: "SendStreamingMessage" | "SubscribeToTask" | "GetTask") {
  const method = wire.grpcMethodWire(name);
  if (!method) throw new Error(`a2a.proto has no ${name}`);
  return method;
}

export class GrpcLoadClient {
  readonly #client: import("@grpc/grpc-js").Client;
  readonly #metadata: import("@grpc/grpc-js").Metadata;
  readonly #stream = methodWire("SendStreamingMessage");
  readonly #getTask = methodWire("GetTask");
  readonly #subscribe = methodWire("SubscribeToTask");
  readonly #storeId: string;

  constructor(endpoint: GrpcEndpoint) {
    this.#storeId = endpoint.storeId;
    this.#client = new grpc.Client(endpoint.address, grpc.credentials.createInsecure());
    this.#metadata = new grpc.Metadata();
    for (const [key, value] of Object.entries(endpoint.metadata)) this.#metadata.set(key, value);
  }

  /**
   * Starts a task and follows its stream to the end: when the request went out, when its first message
   * came, the task id of that first message (a Task), and the terminal state the stream announced.
   */
  startTask(
    messageId: string,
  ): Promise<{ sentAt: number; firstAt: number; endAt: number; taskId?: string; terminal?: string }> {
    const request = this.#stream.encodeRequest({
      message: { messageId, role: "ROLE_USER", parts: [{ text: TEXT }] },
      metadata: { storeId: this.#storeId },
    });
    return new Promise((resolve, reject) => {
      const sentAt = performance.now();
      let firstAt = 0;
      let taskId: string | undefined;
      let terminal: string | undefined;
      const call = this.#client.makeServerStreamRequest(this.#stream.path, asBuffer, same, request, this.#metadata);
      call.on("data", (bytes: Buffer) => {
        // The moment it arrived, before this client's own decoding (the SSE reader stamps it before parsing too).
        const at = performance.now();
        const answer = this.#stream.decodeAnswer(bytes) as {
          task?: { id?: string };
          statusUpdate?: { status?: { state?: string } };
        };
        if (firstAt === 0) {
          firstAt = at;
          taskId = answer.task?.id;
        }
        const state = answer.statusUpdate?.status?.state;
        if (state && TERMINAL.has(state)) terminal = state.slice("TASK_STATE_".length).toLowerCase();
      });
      call.on("error", reject);
      call.on("end", () => {
        if (firstAt === 0) reject(new Error("the stream ended before its first message"));
        else
          resolve({
            sentAt,
            firstAt,
            endAt: performance.now(),
            ...(taskId ? { taskId } : {}),
            ...(terminal ? { terminal } : {}),
          });
      });
    });
  }

  /**
   * An idle stream for streams.ts: a new task's SendStreamingMessage (`task`, `arg` its messageId) or a
   * SubscribeToTask (`subscribe`, `arg` the task id), resolved at its first message and left open.
   */
  openIdle(kind: "task" | "subscribe", arg: string): Promise<OpenedStream> {
    const wire = kind === "task" ? this.#stream : this.#subscribe;
    const request =
      kind === "task"
        ? wire.encodeRequest({
            message: { messageId: arg, role: "ROLE_USER", parts: [{ text: TEXT }] },
            metadata: { storeId: this.#storeId },
          })
        : wire.encodeRequest({ id: arg });
    const sentAt = performance.now();
    const call = this.#client.makeServerStreamRequest(wire.path, asBuffer, same, request, this.#metadata);
    let frames = 0;
    let closed = false;
    let closing = false;
    let resolveEnd: (end: StreamEnd) => void = () => {};
    const ended = new Promise<StreamEnd>((resolve) => {
      resolveEnd = resolve;
    });
    return new Promise((resolve, reject) => {
      const finish = (error?: unknown) => {
        if (closed) return;
        closed = true;
        if (frames === 0) reject(error ?? new Error("the stream ended before its first message"));
        resolveEnd({ terminal: undefined, frames, at: performance.now(), ...(error === undefined ? {} : { error }) });
      };
      call.on("data", (bytes: Buffer) => {
        frames++;
        if (frames > 1) return;
        const answer = wire.decodeAnswer(bytes) as { task?: { id?: string } };
        resolve({
          taskId: answer.task?.id ?? (kind === "subscribe" ? arg : undefined),
          sentAt,
          firstAt: performance.now(),
          ended,
          get closed() {
            return closed;
          },
          close: () => {
            closing = true;
            call.cancel();
          },
        });
      });
      // A cancel of ours is a close, not a drop.
      call.on("error", (error) => (closing ? finish() : finish(error)));
      call.on("end", () => finish());
    });
  }

  /** Resolves once the channel is connected: a server may log that it listens before its gRPC port is bound. */
  ready(timeoutMs = 20_000): Promise<void> {
    return new Promise((resolve, reject) =>
      this.#client.waitForReady(Date.now() + timeoutMs, (error) => (error ? reject(error) : resolve())),
    );
  }

  /** GetTask's answer bytes (a Task message). */
  getTask(id: string): Promise<Buffer> {
    const request = asBuffer(this.#getTask.encodeRequest({ id }));
    return new Promise((resolve, reject) => {
      this.#client.makeUnaryRequest(this.#getTask.path, asBuffer, same, request, this.#metadata, (error, answer) => {
        if (error || !answer) reject(error ?? new Error("no answer"));
        else resolve(answer);
      });
    });
  }

  /** The Task a GetTask answer carries, decoded (the probe before a run). */
  decodeTask(bytes: Buffer): { id?: string } {
    return this.#getTask.decodeAnswer(bytes) as { id?: string };
  }

  close(): void {
    this.#client.close();
  }
}

/** Time to the first message of `starts` sequential new tasks (each read to its end before the next). */
export async function grpcTimeToFirstEvent(
  client: GrpcLoadClient,
  counts: { starts: number; warmups: number },
): Promise<FirstEventTimes> {
  return firstEventTimes(counts, (messageId) => client.startTask(messageId));
}

/** `concurrency` clients polling GetTask on random known tasks, back to back (as load.ts's getTaskThroughput). */
export async function grpcGetTaskThroughput(
  client: GrpcLoadClient,
  taskIds: readonly string[],
  window: LoadWindow,
): Promise<Throughput> {
  if (taskIds.length === 0) throw new Error("no task ids to poll");
  // One full check before the run: the loop below only counts answers.
  const probed = client.decodeTask(await client.getTask(taskIds[0] as string)).id;
  if (probed !== taskIds[0]) throw new Error(`GetTask probe answered task ${probed}, not ${taskIds[0]}`);
  return requestsInWindow(
    window,
    async (i) => (await client.getTask(taskIds[i % taskIds.length] as string)).byteLength > 0,
  );
}

/** `concurrency` clients each starting a task and following it to `completed`, again and again. */
export async function grpcSustainedTasks(client: GrpcLoadClient, window: LoadWindow): ReturnType<typeof tasksInWindow> {
  return tasksInWindow(window, (_w, messageId) => client.startTask(messageId));
}
