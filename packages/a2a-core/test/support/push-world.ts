import { afterEach, expect } from "vitest";
import type { Logger } from "../../src/ports/logger.js";
import type { PushConfig } from "../../src/ports/push-configs.js";
import type { Task } from "../../src/protocol/schemas/a2a.js";
import { PushDispatcher, type PushDispatcherOptions } from "../../src/runtime/push/dispatcher.js";
import { createInMemoryStores, type InMemoryStores } from "../../src/stores/in-memory.js";
import { PushTelemetry } from "../../src/telemetry/push-telemetry.js";
import { storeFixtures } from "../../src/testing/store-fixtures.js";

export const WORKSPACE = "ws-a";
/** Two signing secrets, as during a rotation (newest first). */
export const SECRETS = [
  `whsec_${btoa("push-test-secret-new-0123456789")}`,
  `whsec_${btoa("push-test-secret-old-0123456789")}`,
];

/** A logger that keeps what it was told, by level. */
export function recordingLogger() {
  const lines: Array<{ level: "info" | "warn" | "error"; obj: Record<string, unknown>; msg: string | undefined }> = [];
  const logger: Logger = {
    info: (obj, msg) => lines.push({ level: "info", obj: obj as Record<string, unknown>, msg }),
    warn: (obj, msg) => lines.push({ level: "warn", obj: obj as Record<string, unknown>, msg }),
    error: (obj, msg) => lines.push({ level: "error", obj: obj as Record<string, unknown>, msg }),
  };
  return { logger, lines };
}

/** Waits until the log says a push attempt failed, and returns that line's error (what the guard said). */
export async function failedAttemptError(lines: ReturnType<typeof recordingLogger>["lines"]): Promise<unknown> {
  const failed = () => lines.find((line) => line.msg?.includes("push attempt failed"));
  await expect.poll(failed).toBeDefined();
  return failed()?.obj.error;
}

/**
 * In-memory stores with push, tasks and configs made directly in them (these tests are about delivery,
 * not the methods), events appended as a runner would, and dispatchers closed after each test. `send`:
 * what dispatchers POST with (default: the runtime's `fetch`).
 */
export function pushWorld(options: { clock?: () => number; send?: typeof fetch } = {}) {
  const stores: InMemoryStores = createInMemoryStores(options);
  const fixtures = storeFixtures();
  const { logger, lines } = recordingLogger();
  const dispatchers: PushDispatcher[] = [];
  afterEach(async () => {
    await Promise.all(dispatchers.splice(0).map((dispatcher) => dispatcher.close(0)));
  });

  return {
    stores,
    logger,
    lines,
    /** A running task (of `workspace`) with one config pointing at `url`. */
    async taskWithConfig(
      config: Partial<PushConfig> & { url: string },
      workspace = WORKSPACE,
    ): Promise<{ task: Task; config: PushConfig }> {
      const record = await stores.tasks.create(fixtures.newTask(workspace));
      const put = await stores.push.configs.put(
        workspace,
        { id: "cfg-1", taskId: record.task.id, version: "0.3", createdAt: new Date().toISOString(), ...config },
        10,
      );
      if (put.kind !== "stored") throw new Error(`config not stored: ${put.kind}`);
      return { task: record.task, config: put.config };
    },
    /** Appends a progress update (seq 2, 3, …) and, with it, a delivery per config. */
    async update(task: Task, percent: number) {
      const event = await stores.events.append(task.id, fixtures.update(task, percent));
      if (!event) throw new Error("update not appended");
      return event;
    },
    async finish(task: Task) {
      const event = await stores.events.append(task.id, fixtures.finished(task));
      if (!event) throw new Error("end not appended");
      return event;
    },
    /** A started dispatcher on these stores; closed after the test. */
    dispatcher(overrides: Partial<PushDispatcherOptions> = {}): PushDispatcher {
      const dispatcher = new PushDispatcher({
        deliveries: stores.push.deliveries,
        owner: `instance-${dispatchers.length + 1}`,
        send: options.send ?? ((input, init) => fetch(input, init)),
        signingSecrets: async () => SECRETS,
        logger,
        telemetry: new PushTelemetry(),
        now: () => new Date(),
        attemptTimeoutMs: 2_000,
        horizonMs: 60_000,
        // Retries at once unless a test says otherwise: what is tested is the order and the outcome.
        random: () => 0,
        ...overrides,
      });
      dispatchers.push(dispatcher);
      dispatcher.start();
      return dispatcher;
    },
  };
}
