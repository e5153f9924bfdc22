import type { Artifact, Message, Part, TaskExecutionContext, TaskExecutor, TaskOutcome } from "@a2a-partner/a2a-core";

/**
 * The conformance kit's scenarios (a2aproject/a2a-tck, branch 1.0-dev, `scenarios/*.feature`; its Python
 * SUT `sut/a2a-python/sut_agent.py`): the executor acts on the message's `messageId` prefix.
 */
export const tckExecutor: TaskExecutor = {
  async execute(context) {
    const id = context.message.messageId ?? "";
    const scenario = SCENARIOS.find(([prefix]) => id.startsWith(prefix));
    if (scenario) return scenario[1](context);
    return done(`Unhandled messageId prefix: ${id}`);
  },
  // A message answered with a message, no task (A2A's Message result).
  async reply({ message }) {
    const answers = message.messageId?.startsWith("tck-message-response");
    return answers ? { parts: [text("Direct message response")] } : undefined;
  },
};

type Scenario = (context: TaskExecutionContext) => Promise<TaskOutcome>;

const text = (value: string): Part => ({ text: value });
const FILE: Part = { raw: Buffer.from("tck").toString("base64"), mediaType: "text/plain", filename: "output.txt" };
const FILE_URL: Part = { url: "https://example.com/output.txt", mediaType: "text/plain", filename: "output.txt" };
const DATA: Part = { data: { key: "value", count: 42 } };

function done(message?: string, ...parts: Part[]): TaskOutcome {
  const artifacts = parts.map((part, index) => ({ artifact: artifact(`artifact-${index + 1}`, [part]) }));
  return { state: "TASK_STATE_COMPLETED", ...(message ? { message } : {}), ...(artifacts.length ? { artifacts } : {}) };
}

function artifact(artifactId: string, parts: Part[]): Artifact {
  return { artifactId, parts };
}

/** Emits `working` first, as the streaming scenarios expect a status before the artifact. */
async function working(context: TaskExecutionContext): Promise<void> {
  await context.emit({ kind: "status", state: "TASK_STATE_WORKING" });
}

// Longest prefixes first where one is the start of another (tck-artifact-file-url, tck-artifact-file).
const SCENARIOS: ReadonlyArray<readonly [string, Scenario]> = [
  [
    "tck-stream-artifact-chunked",
    async (context) => {
      await working(context);
      await context.emit({ kind: "artifact", artifact: artifact("chunked", [text("chunk-1 ")]) });
      await context.emit({
        kind: "artifact",
        artifact: artifact("chunked", [text("chunk-2")]),
        append: true,
        lastChunk: true,
      });
      return done();
    },
  ],
  [
    "test-resubscribe-message-id",
    async (context) => {
      await working(context);
      await new Promise((resolve) => setTimeout(resolve, 4000));
      return done();
    },
  ],
  [
    "tck-stream-artifact-text",
    async (context) => {
      await working(context);
      return done(undefined, text("Streamed text content"));
    },
  ],
  [
    "tck-stream-artifact-file",
    async (context) => {
      await working(context);
      return done(undefined, FILE);
    },
  ],
  [
    "tck-stream-ordering-001",
    async (context) => {
      await working(context);
      return done(undefined, text("Ordered output"));
    },
  ],
  ["tck-artifact-file-url", async () => done(undefined, FILE_URL)],
  [
    "tck-input-required",
    async (context) => {
      // Each follow-up is routed by its own prefix, as the Python SUT does: another `tck-input-required`
      // asks again (the history scenarios send several), `tck-complete-task` completes.
      let reply: Message;
      do {
        await context.emit({ kind: "status", state: "TASK_STATE_INPUT_REQUIRED", message: "Input required" });
        reply = await context.nextMessage();
      } while (reply.messageId?.startsWith("tck-input-required"));
      if (reply.messageId?.startsWith("tck-complete-task")) return done("Hello from TCK");
      return done(`Unhandled messageId prefix: ${reply.messageId ?? ""}`);
    },
  ],
  ["tck-complete-task", async () => done("Hello from TCK")],
  ["tck-artifact-text", async () => done(undefined, text("Generated text content"))],
  ["tck-artifact-file", async () => done(undefined, FILE)],
  ["tck-artifact-data", async () => done(undefined, DATA)],
  ["tck-reject-task", async () => ({ state: "TASK_STATE_REJECTED", message: "rejected" })],
  [
    "tck-stream-001",
    async (context) => {
      await working(context);
      return done(undefined, text("Stream hello from TCK"));
    },
  ],
  ["tck-stream-002", async () => done()],
  [
    "tck-stream-003",
    async (context) => {
      await working(context);
      return done(undefined, text("Stream task lifecycle"));
    },
  ],
];
