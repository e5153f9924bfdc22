import { appliedHeapSettings, heapSettingsForLog } from "../heap-defaults.js";
import type { RuntimeLogger } from "../runtime-logger.js";
import { startTelemetry, type TelemetryOptions } from "../start-telemetry.js";
import { stopOnSignals } from "./shutdown-signals.js";

/** What `serveUntilSignalled` starts: anything it can stop gracefully. */
export interface Stoppable {
  stop(): Promise<void>;
}

/**
 * A server command's life: V8's heap settings in the log (when `applyHeapDefaults` set them), a graceful
 * stop on SIGTERM and SIGINT armed before anything starts (`stopOnSignals`), the OpenTelemetry SDK started
 * as asked (`startTelemetry`: first, so the cores report through the API it registers), then `start`. A
 * signal stops what `start` answered, then telemetry, and exits 0. A failed start stops telemetry and
 * throws. Answers -1 (keep running), as `runCommandLine`'s commands do for a server; `start` may load the
 * server's modules itself, so commands that never serve need not load them.
 */
export async function serveUntilSignalled(
  logger: RuntimeLogger,
  telemetryOptions: TelemetryOptions,
  start: () => Promise<Stoppable>,
): Promise<number> {
  const heap = appliedHeapSettings();
  if (heap) logger.info(heapSettingsForLog(heap), "V8 heap settings");
  const signals = stopOnSignals(logger);
  const telemetry = await startTelemetry(telemetryOptions, logger);
  const running = await start().catch(async (error: unknown) => {
    await telemetry?.stop();
    throw error;
  });
  signals.started(async () => {
    await running.stop();
    await telemetry?.stop();
  });
  return -1;
}
