import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { storePerSuite } from "./support/process-suite.ts";
import { rpc } from "./support/rpc.ts";
import { createPgliteStore, startServerProcess } from "./support/server-process.ts";

interface LogEntry {
  level: number;
  msg: string;
  component?: string;
  metricsUrl?: string;
  err?: { stack?: string };
}

/** The server's JSON log lines (anything else it wrote to stderr is skipped). */
function logEntries(log: string): LogEntry[] {
  return log.split("\n").flatMap((line) => {
    try {
      return [JSON.parse(line) as LogEntry];
    } catch {
      return [];
    }
  });
}

/** The `metricsUrl` the server logged when it started OpenTelemetry. */
function metricsUrlOf(log: string): string {
  const started = logEntries(log).find((entry) => entry.msg === "OpenTelemetry started" && entry.metricsUrl);
  if (!started?.metricsUrl) throw new Error(`no metrics endpoint in the log:\n${log}`);
  return started.metricsUrl;
}

/** A request the server answers with an error (-32001, task not found): measured and traced like any. */
const getUnknownTask = (a2aUrl: string, token: string) => rpc(a2aUrl, token, "tasks/get", { id: "no-such-task" });

/** The value of the first sample whose name and labels match, or 0 when there is none yet. */
function sample(exposition: string, name: string, labels: Record<string, string>): number {
  for (const line of exposition.split("\n")) {
    if (!line.startsWith(`${name}{`)) continue;
    if (!Object.entries(labels).every(([key, value]) => line.includes(`${key}="${value}"`))) continue;
    return Number(line.slice(line.lastIndexOf(" ") + 1));
  }
  return 0;
}

async function scrape(url: string): Promise<string> {
  const res = await fetch(url);
  expect(res.status).toBe(200);
  return res.text();
}

describe("the reference server with METRICS_PORT", () => {
  const suite = storePerSuite(createPgliteStore);

  it("serves Prometheus metrics on a port of its own, and the request counter moves with a request", async () => {
    const { store, seeded } = suite;
    const server = await startServerProcess({ ...store.env, METRICS_PORT: "0" }, { startTimeoutMs: 60_000 });
    const metricsUrl = metricsUrlOf(server.log());
    expect(new URL(metricsUrl).hostname).toBe("127.0.0.1");
    expect(new URL(metricsUrl).port).not.toBe(new URL(server.url).port);

    const name = "a2a_server_request_duration_count";
    const labels = { rpc_method: "GetTask", rpc_jsonrpc_error_code: "-32001" };
    const before = sample(await scrape(metricsUrl), name, labels);
    expect((await getUnknownTask(server.a2aUrl, seeded.partnerToken)).body.error.code).toBe(-32001);

    const after = await scrape(metricsUrl);
    expect(sample(after, name, labels)).toBe(before + 1);
    expect(
      sample(after, "a2a_server_errors_total", { ...labels, http_response_status_code: "200" }),
    ).toBeGreaterThanOrEqual(1);
    // The scrape endpoint answers only /metrics; the A2A port serves no metrics.
    expect((await fetch(new URL("/other", metricsUrl))).status).toBe(404);
    expect((await fetch(`${server.url}/metrics`)).status).toBe(404);
  }, 120_000);
});

/** A local port nothing listens on. */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

describe("the reference server exporting over OTLP", () => {
  const suite = storePerSuite(createPgliteStore);

  it("logs an export that fails, in its own JSON log, instead of dropping it silently", async () => {
    const { store, seeded } = suite;
    const server = await startServerProcess(
      {
        ...store.env,
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${await closedPort()}`,
        // A refused connection is retried until the export's own timeout; kept under the interval, the
        // failure itself is reported (not the reader's timeout).
        OTEL_METRIC_EXPORT_INTERVAL: "1500",
        OTEL_EXPORTER_OTLP_TIMEOUT: "300",
      },
      { startTimeoutMs: 60_000 },
    );
    // Something to export: a request's span and measurements.
    await getUnknownTask(server.a2aUrl, seeded.partnerToken);
    const failed = () =>
      logEntries(server.log()).find(
        (entry) => entry.component === "opentelemetry" && entry.level >= 50 && /export/i.test(entry.msg),
      );
    const deadline = Date.now() + 20_000;
    while (!failed() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(failed()?.msg).toMatch(/metrics export failed.*ECONNREFUSED/);
    expect(failed()?.err?.stack).toContain("ECONNREFUSED");
  }, 120_000);
});
