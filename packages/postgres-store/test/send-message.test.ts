import { randomUUID } from "node:crypto";
import { createA2AHandler, type TaskExecutionContext, type TaskExecutor, toFetchHandler } from "@a2a-partner/a2a-core";
import type { LooseJson } from "@a2a-partner/test-support/loose-json";
import { postgresAvailable } from "@a2a-partner/test-support/postgres";
import { describe, expect, it } from "vitest";
import { createPostgresStores } from "../src/index.js";
import { handlerBackendPerSuite } from "./support/migrated-backend.js";

const reachable = await postgresAvailable();

/** An executor that finishes a task when the test says so. */
class HeldExecutor implements TaskExecutor {
  readonly contexts: TaskExecutionContext[] = [];
  private readonly releases: Array<() => void> = [];
  async execute(context: TaskExecutionContext) {
    this.contexts.push(context);
    await new Promise<void>((resolve) => this.releases.push(resolve));
    await context.emit({ kind: "status", state: "TASK_STATE_WORKING", message: "half way" });
    return { state: "TASK_STATE_COMPLETED" as const, message: "Done" };
  }
  release(): void {
    for (const release of this.releases.splice(0)) release();
  }
}

/** Asks which aisle, then restocks the aisle the caller names (a multi-turn executor). */
class AskingExecutor implements TaskExecutor {
  readonly replies: unknown[] = [];
  async execute(context: TaskExecutionContext) {
    await context.emit({ kind: "status", state: "TASK_STATE_INPUT_REQUIRED", message: "Which aisle?" });
    const reply = await context.nextMessage();
    this.replies.push(reply);
    const part = reply.parts[0];
    return { state: "TASK_STATE_COMPLETED" as const, message: `Restocked aisle ${part?.text ?? "?"}` };
  }
}

// SendMessage on the durable stores: its answer waits on the log, so an instance that does not run the
// task (a retry that landed elsewhere) answers it when it ends; the task is created once.
describe.each(["pglite", "postgres"] as const)("SendMessage on %s", (kind) => {
  const suite = handlerBackendPerSuite(kind, "send_message_test", kind === "postgres" && !reachable);
  const workspaceId = randomUUID();

  const itOnBackend = it.skipIf(kind === "postgres" && !reachable);

  function instance(executor: TaskExecutor) {
    const handler = createA2AHandler({
      stores: createPostgresStores(suite.backend.db),
      executor,
      authenticate: async () => ({ ok: true, workspaceId }),
      logger: { info() {}, warn() {}, error() {} },
    });
    suite.handlers.push(handler);
    const fetch = toFetchHandler(handler);
    return async (params: unknown, version = "0.3") => {
      const response = await fetch(
        new Request("http://test/a2a", {
          method: "POST",
          headers: { "content-type": "application/json", "a2a-version": version },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "SendMessage", params }),
        }),
      );
      return (await response.json()) as { result?: LooseJson; error?: LooseJson };
    };
  }

  itOnBackend("a retry on another instance waits for the task the first one runs, and answers it ended", async () => {
    const held = new HeldExecutor();
    const [a, b] = [instance(held), instance(new HeldExecutor())];
    const params = (configuration = {}) => ({
      message: { role: "user", messageId: "send-1", parts: [{ kind: "text", text: "restock" }] },
      metadata: { storeId: "store-001" },
      configuration,
    });
    const first = await a(params({ blocking: false }));
    expect(first.result.status.state).toBe("working");
    const retried = b(params());
    // The retry is waiting on B while A still runs the task.
    const early = await Promise.race([retried, new Promise((r) => setTimeout(() => r("waiting"), 300))]);
    expect(early).toBe("waiting");
    held.release();
    const { result } = await retried;
    expect(result).toMatchObject({ id: first.result.id, status: { state: "completed" } });
    expect(result.history.length).toBeGreaterThan(0);
    expect(held.contexts).toHaveLength(1);
  });

  itOnBackend("answers v1.0 with the task, its history trimmed", async () => {
    const held = new HeldExecutor();
    const send = instance(held);
    const answer = send(
      {
        message: { role: "ROLE_USER", messageId: "send-2", parts: [{ text: "restock" }] },
        metadata: { storeId: "store-001" },
        configuration: { historyLength: 0 },
      },
      "1.0",
    );
    while (held.contexts.length === 0) await new Promise((r) => setTimeout(r, 10));
    held.release();
    const { result } = await answer;
    expect(result.task.status.state).toBe("TASK_STATE_COMPLETED");
    expect(result.task).not.toHaveProperty("history");
  });

  itOnBackend(
    "a follow-up sent to another instance reaches the executor that asked, once, and is in the history",
    async () => {
      const asking = new AskingExecutor();
      const [a, b] = [instance(asking), instance(new HeldExecutor())];
      const start = {
        message: { role: "user", messageId: "turn-1", parts: [{ kind: "text", text: "restock" }] },
        metadata: { storeId: "store-001" },
      };
      const asked = (await a(start)).result;
      expect(asked.status.state).toBe("input-required");
      const reply = {
        message: { role: "user", taskId: asked.id, messageId: "turn-2", parts: [{ kind: "text", text: "5" }] },
      };
      const done = (await b(reply)).result;
      expect(done.status).toMatchObject({ state: "completed", message: { parts: [{ text: "Restocked aisle 5" }] } });
      expect(done.history.map((m: { role: string }) => m.role)).toEqual(["user", "agent", "user", "agent"]);
      // Retried on either instance: the same task, nothing handed over again.
      expect((await a(reply)).result.id).toBe(asked.id);
      expect((await b(reply)).result.id).toBe(asked.id);
      expect(asking.replies).toHaveLength(1);
    },
  );
});
