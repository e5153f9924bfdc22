/**
 * Investigation target `ours-lean` (not in the default run): our reference server — the same app, auth,
 * handler, PostgreSQL stores and HTTP server as `src/cli.ts serve` — with the simulated robot fleet
 * replaced by the executor the SDK twin runs (sdk-server.ts): a status per step after STEP_MS, an
 * artifact, `completed`, and no metrics records. It separates what the protocol and its durable event
 * log cost from what the fleet simulation writes.
 *
 * Env: the server's own (DATABASE_URL, PORT …) plus STEP_MS and STEPS. Logs
 * `{"msg":"bench server listening","url":…}` on stderr once it listens.
 */

import { environmentExecutor } from "@a2a-partner/a2a-core";
import { createHttpServer, createPinoLogger } from "@a2a-partner/a2a-core/node-runtime";
import { createApp } from "@a2a-partner/example-server/app";
import { loadConfig } from "@a2a-partner/example-server/config";
import { openConfiguredDatabase } from "@a2a-partner/example-server/configured-database";
import { migrateReferenceSchema } from "@a2a-partner/example-server/migrations";
import { listenAndAnnounce } from "./announce-listening.ts";
import { sleepUnlessAborted } from "./sleep-unless-aborted.ts";

const stepMs = Number(process.env.STEP_MS ?? 400);
const steps = Number(process.env.STEPS ?? 5);

// Wrapped like the fleet, so its starts name an Environment as the reference server's do.
const timeline = environmentExecutor({
  async execute({ emit, signal }) {
    for (let step = 1; step <= steps; step++) {
      await sleepUnlessAborted(stepMs, signal);
      if (signal.aborted) return { state: "TASK_STATE_FAILED" };
      await emit({
        kind: "status",
        message: `robot-${((step - 1) % 3) + 1}: step ${step} of ${steps}`,
        metadata: { step, steps, percent: Math.round((step / steps) * 100) },
      });
    }
    await emit({
      kind: "artifact",
      artifact: { artifactId: "report", name: "Task report", parts: [{ text: `${steps} steps` }] },
      lastChunk: true,
    });
    return { state: "TASK_STATE_COMPLETED", message: "Done." };
  },
});

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createPinoLogger({ level: config.logLevel, format: "json", service: "bench" });
  const db = await openConfiguredDatabase(config);
  await migrateReferenceSchema(db);
  const app = createApp({ db, config, logger, executor: timeline });
  const server = createHttpServer(app.listener, config);
  listenAndAnnounce(server, config.port, config.host);
  process.once("SIGTERM", () => {
    void app.close().then(() => process.exit(0));
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`ours-lean failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
