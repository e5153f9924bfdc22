import { afterEach, describe, expect, it } from "vitest";
import type { RuntimeLogger } from "../runtime-logger.js";
import { serveUntilSignalled } from "./serve-until-signalled.js";

const lines: string[] = [];
const logger: RuntimeLogger = {
  child: () => logger,
  error: (_obj, msg) => lines.push(`error ${msg}`),
  warn: (_obj, msg) => lines.push(`warn ${msg}`),
  info: (_obj, msg) => lines.push(`info ${msg}`),
  debug: () => {},
  trace: () => {},
};

// stopOnSignals adds process listeners; the ones a test added go again.
const before = { SIGTERM: process.listeners("SIGTERM"), SIGINT: process.listeners("SIGINT") };
afterEach(() => {
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    for (const listener of process.listeners(signal)) {
      if (!before[signal].includes(listener)) process.off(signal, listener);
    }
  }
});

describe("serveUntilSignalled", () => {
  it("starts the server with the signals armed, and keeps the process running (-1)", async () => {
    let started = 0;
    const code = await serveUntilSignalled(logger, { serviceName: "test" }, async () => {
      started += 1;
      expect(process.listenerCount("SIGTERM")).toBeGreaterThan(before.SIGTERM.length);
      return { stop: async () => {} };
    });
    expect(code).toBe(-1);
    expect(started).toBe(1);
  });

  it("throws what a failed start threw", async () => {
    const failed = serveUntilSignalled(logger, { serviceName: "test" }, () => Promise.reject(new Error("port taken")));
    await expect(failed).rejects.toThrow("port taken");
  });
});
