import {
  A2AError,
  InvalidParamsError,
  isA2AError,
  MethodNotFoundError,
  TaskNotFoundError,
} from "@a2a-partner/a2a-core";
import { A2AClient } from "../client.js";
import {
  A2AHttpError,
  APIConnectionError,
  APIUserAbortError,
  isA2AHttpError,
  UntrustedEndpointError,
} from "../errors.js";
import type { Message } from "../model.js";
import type { A2AClientOptions, RetryInfo } from "../options.js";
import type { TaskFinishedEvent, TaskStreamEvent } from "../stream/events.js";
import type { TaskStream } from "../stream/task-stream.js";
import { type CliCommand, parseCliArgs, USAGE } from "./args.js";
import { formatProgressLine, progressOf, sanitize, textOf } from "./progress.js";

export interface OutputStream {
  write(chunk: string): unknown;
  isTTY?: boolean;
  /** Terminal width: the redrawn progress line is cut to it so that it never wraps. */
  columns?: number;
}

export interface CliIo {
  /** Arguments after the script name. */
  argv: readonly string[];
  env: Readonly<Record<string, string | undefined>>;
  stdout: OutputStream;
  stderr: OutputStream;
  /** Aborts on Ctrl-C: the stream closes, the task goes on on the server. */
  signal?: AbortSignal;
  /** Overrides for the client (tests inject fetch, sleep and small backoffs). */
  clientOptions?: Partial<A2AClientOptions>;
}

/** The field a server names when it refuses a start's Environment (or finds none to default to). */
const STORE_ID_FIELD = "params.metadata.storeId";

export const EXIT = { completed: 0, notCompleted: 1, usage: 2, connection: 3, interrupted: 130 } as const;

/** The partner CLI: starts (or attaches to) a task, shows its progress, and exits by its outcome. */
export async function runCli(io: CliIo): Promise<number> {
  const parsed = parseCliArgs(io.argv, io.env);
  if (!parsed.ok) {
    io.stderr.write(`a2a-task: ${parsed.message}\nRun a2a-task --help for usage.\n`);
    return EXIT.usage;
  }
  if (parsed.command.kind === "help") {
    io.stdout.write(`${USAGE}\n`);
    return EXIT.completed;
  }
  const command = parsed.command;
  const display: Display = command.json ? new JsonDisplay(io) : new HumanDisplay(io);

  let client: A2AClient;
  let stream: TaskStream;
  try {
    client = new A2AClient({
      ...(command.baseUrl ? { baseUrl: command.baseUrl } : {}),
      ...(command.agentCardUrl ? { agentCardUrl: command.agentCardUrl } : {}),
      ...(command.allowCrossOriginEndpoint ? { allowCrossOriginEndpoint: true } : {}),
      token: command.token,
      methodNames: command.legacyMethods ? "alias" : "current",
      ...(command.maxResumeAttempts !== undefined ? { maxResumeAttempts: command.maxResumeAttempts } : {}),
      ...(command.timeoutMs !== undefined ? { timeoutMs: command.timeoutMs } : {}),
      onRetry: (info) => display.retry(info),
      ...io.clientOptions,
    });
    stream = openStream(client, command, io.signal);
  } catch (error) {
    io.stderr.write(`a2a-task: ${error instanceof Error ? error.message : String(error)}\n`);
    return EXIT.usage;
  }

  try {
    for await (const event of stream) display.event(event);
    // An agent that answered with a message (no task): that message is the outcome.
    const reply = await stream.reply;
    if (reply) {
      display.reply(reply);
      return EXIT.completed;
    }
    const finished = await stream.finished;
    display.finished(finished, stream);
    return finished.state === "completed" ? EXIT.completed : EXIT.notCompleted;
  } catch (error) {
    display.failed(error, stream);
    return exitCodeFor(error);
  } finally {
    display.stop();
    await client.close().catch(() => {});
  }
}

function openStream(
  client: A2AClient,
  command: Extract<CliCommand, { kind: "run" }>,
  signal?: AbortSignal,
): TaskStream {
  const withSignal = signal ? { signal } : {};
  if (command.attach) {
    return client.subscribeToTask(command.attach, {
      ...withSignal,
      ...(command.lastEventId !== undefined ? { lastEventId: command.lastEventId } : {}),
    });
  }
  return client.sendStreamingMessage({
    text: command.text as string,
    ...(command.storeId ? { storeId: command.storeId } : {}),
    ...(command.messageId ? { messageId: command.messageId } : {}),
    ...withSignal,
  });
}

/** 3 for "could not talk to the server" (network, auth, HTTP errors); 2 for bad input; 1 otherwise. */
export function exitCodeFor(error: unknown): number {
  if (error instanceof APIUserAbortError) return EXIT.interrupted;
  if (isA2AHttpError(error) || error instanceof APIConnectionError || error instanceof UntrustedEndpointError) {
    return EXIT.connection;
  }
  if (
    isA2AError(error) &&
    [InvalidParamsError, TaskNotFoundError, MethodNotFoundError].some((c) => error instanceof c)
  ) {
    return EXIT.usage;
  }
  if (error instanceof TypeError) return EXIT.usage;
  return EXIT.notCompleted;
}

/** A hint that turns an error into something to do. */
function hintFor(error: unknown, stream: TaskStream): string | undefined {
  if (error instanceof A2AHttpError && error.status === 401) return "check --token / A2A_TOKEN";
  if (error instanceof A2AHttpError && error.status === 403) return "this endpoint takes a workspace partner token";
  if (error instanceof MethodNotFoundError) return "an older server? try --legacy-methods";
  if (error instanceof InvalidParamsError && fieldOf(error) === STORE_ID_FIELD) {
    return "name an Environment of your workspace with --store <storeId>";
  }
  if (error instanceof UntrustedEndpointError && error.reason === "cross-origin") {
    return "if you trust the card, pass --allow-cross-origin-endpoint (the token is sent to that origin)";
  }
  if ((error instanceof APIConnectionError || error instanceof APIUserAbortError) && stream.taskId) {
    const after = stream.lastEventId ? ` --last-event-id ${stream.lastEventId}` : "";
    return `the task goes on on the server; follow it with: a2a-task --attach ${stream.taskId}${after}`;
  }
  return undefined;
}

/** The request field an error names (`data.field`), if any. */
function fieldOf(error: InvalidParamsError): unknown {
  const { data } = error;
  return typeof data === "object" && data !== null ? (data as { field?: unknown }).field : undefined;
}

function describeError(error: unknown): string {
  if (error instanceof APIUserAbortError) return "interrupted";
  if (error instanceof A2AError || error instanceof Error) return sanitize(`${error.name}: ${error.message}`);
  return "unknown error";
}

interface Display {
  event(event: TaskStreamEvent): void;
  retry(info: RetryInfo): void;
  finished(event: TaskFinishedEvent, stream: TaskStream): void;
  /** The agent answered with a message instead of a task. */
  reply(message: Message): void;
  failed(error: unknown, stream: TaskStream): void;
  stop(): void;
}

function retryLine(info: RetryInfo): string {
  const what = info.kind === "resume" ? "stream dropped" : "request failed";
  const seconds = (info.delayMs / 1000).toFixed(1);
  return `${what} (${sanitize(info.error.message)}); retrying in ${seconds}s (attempt ${info.attempt}/${info.maxAttempts})`;
}

/** `--json`: one JSON line per event on stdout; retries and errors as text on stderr. */
class JsonDisplay implements Display {
  readonly #io: CliIo;

  constructor(io: CliIo) {
    this.#io = io;
  }

  event(event: TaskStreamEvent): void {
    this.#io.stdout.write(`${JSON.stringify(event)}\n`);
  }

  retry(info: RetryInfo): void {
    this.#io.stderr.write(`a2a-task: ${retryLine(info)}\n`);
  }

  finished(): void {}

  // Its `message` event line was printed already.
  reply(): void {}

  failed(error: unknown, stream: TaskStream): void {
    const body: Record<string, unknown> = {
      name: error instanceof Error ? error.name : "Error",
      message: describeError(error),
    };
    if (isA2AHttpError(error)) body.status = error.status;
    if (isA2AError(error)) body.code = error.code;
    const line = { type: "error", error: body, taskId: stream.taskId ?? null, lastEventId: stream.lastEventId ?? null };
    this.#io.stdout.write(`${JSON.stringify(line)}\n`);
    const hint = hintFor(error, stream);
    this.#io.stderr.write(`a2a-task: ${describeError(error)}${hint ? `\n  ${hint}` : ""}\n`);
  }

  stop(): void {}
}

const SPINNER = ["|", "/", "-", "\\"];

/**
 * Human output: progress on stderr (one redrawn line with a spinner on a terminal, a line per update
 * otherwise), the outcome on stdout.
 */
class HumanDisplay implements Display {
  readonly #io: CliIo;
  readonly #tty: boolean;
  #percent: number | undefined;
  #line = "";
  #lastPrinted = "";
  #frame = 0;
  /** Whether the progress line is on screen (to be cleared before other output). */
  #drawn = false;
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(io: CliIo) {
    this.#io = io;
    this.#tty = io.stderr.isTTY === true;
  }

  event(event: TaskStreamEvent): void {
    const info = progressOf(event);
    if (info.percent !== undefined) this.#percent = info.percent;
    if (event.type === "task") {
      const { task } = event;
      const storeId = task.metadata.storeId;
      const where = typeof storeId === "string" ? ` in ${sanitize(storeId)}` : "";
      this.#print(`task ${sanitize(task.id)}${where}: ${task.status.state}`);
      return;
    }
    if (event.type === "finished" || event.type === "message") return;
    this.#line = formatProgressLine(info, this.#percent);
    if (this.#tty) {
      this.#startSpinner();
      this.#redraw();
    } else if (this.#line !== this.#lastPrinted) {
      this.#lastPrinted = this.#line;
      this.#io.stderr.write(`${this.#line}\n`);
    }
  }

  retry(info: RetryInfo): void {
    this.#print(retryLine(info));
  }

  finished(event: TaskFinishedEvent, stream: TaskStream): void {
    this.stop();
    const text = textOf(event.update.status.message);
    this.#io.stdout.write(
      `${event.state}: task ${sanitize(stream.taskId ?? event.update.taskId)}${text ? ` - ${text}` : ""}\n`,
    );
  }

  reply(message: Message): void {
    this.stop();
    this.#io.stdout.write(`message: ${sanitize(textOf(message) ?? "(no text)")}\n`);
  }

  failed(error: unknown, stream: TaskStream): void {
    this.stop();
    const hint = hintFor(error, stream);
    this.#io.stderr.write(`a2a-task: ${describeError(error)}${hint ? `\n  ${hint}` : ""}\n`);
  }

  stop(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    this.#clear();
  }

  /** A permanent line above the redrawn progress line. */
  #print(text: string): void {
    const wasDrawn = this.#drawn;
    this.#clear();
    this.#io.stderr.write(`${text}\n`);
    if (wasDrawn) this.#redraw();
  }

  #startSpinner(): void {
    if (this.#timer !== undefined) return;
    this.#timer = setInterval(() => {
      this.#frame = (this.#frame + 1) % SPINNER.length;
      this.#redraw();
    }, 120);
    // The spinner never keeps the process alive on its own.
    this.#timer.unref?.();
  }

  #redraw(): void {
    if (!this.#tty) return;
    const width = this.#io.stderr.columns;
    const line = `${SPINNER[this.#frame]} ${this.#line}`;
    this.#io.stderr.write(`\r\x1b[2K${width && width > 4 ? line.slice(0, width - 1) : line}`);
    this.#drawn = true;
  }

  #clear(): void {
    if (!this.#drawn) return;
    this.#io.stderr.write("\r\x1b[2K");
    this.#drawn = false;
  }
}
