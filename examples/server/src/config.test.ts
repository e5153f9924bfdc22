import { ConfigError } from "@a2a-partner/a2a-core/node-runtime";
import { describe, expect, it } from "vitest";
import { loadConfig } from "./config.ts";

describe("loadConfig", () => {
  it("refuses a PUBLIC_URL that is not an absolute http(s) URL", () => {
    for (const value of ["a2a.example.com", "ftp://x", "/relative"]) {
      expect(() => loadConfig({ PUBLIC_URL: value })).toThrow(/PUBLIC_URL must be an absolute http\(s\) URL/);
    }
    expect(loadConfig({ PUBLIC_URL: "https://a2a.example.com/" }).publicUrl).toBe("https://a2a.example.com");
  });

  it("refuses a value the server would misuse, naming the variable: ports, timings, log level, database URL", () => {
    const refused: [Record<string, string>, RegExp][] = [
      [{ PORT: "99999" }, /PORT must be a TCP port \(0 to 65535\), got "99999"/],
      [{ METRICS_PORT: "70000" }, /METRICS_PORT must be a TCP port/],
      // Number() takes these; a timer set with 1e300 ms fires after 1 ms.
      [{ SHUTDOWN_GRACE_MS: "1e300" }, /SHUTDOWN_GRACE_MS must be a non-negative integer, got "1e300"/],
      [{ PORT: "0x50" }, /PORT must be a non-negative integer/],
      [{ TASK_LEASE_MS: "9999999999" }, /TASK_LEASE_MS must be between 1000 and 2147483647/],
      // A zero lease would renew and sweep in a busy loop, and turn the periodic orphan sweep off.
      [{ TASK_LEASE_MS: "0" }, /TASK_LEASE_MS must be between 1000/],
      [
        { LOG_LEVEL: "verbose" },
        /LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "verbose"/,
      ],
      [{ LOG_FORMAT: "text" }, /LOG_FORMAT must be json or pretty/],
      [{ DATABASE_URL: "notaurl" }, /DATABASE_URL must be a postgres:\/\/ or postgresql:\/\/ URL, got "notaurl"/],
      [{ DATABASE_URL: "mysql://u:secret@db/x" }, /got "mysql:\/\/u:\*\*\*@db\/x"/],
    ];
    for (const [env, message] of refused) {
      expect(() => loadConfig(env), JSON.stringify(env)).toThrow(ConfigError);
      expect(() => loadConfig(env), JSON.stringify(env)).toThrow(message);
    }
  });

  it("accepts the edges of each range", () => {
    const config = loadConfig({
      PORT: "65535",
      METRICS_PORT: "0",
      TASK_LEASE_MS: "1000",
      SHUTDOWN_GRACE_MS: "2147483647",
      LOG_LEVEL: "WARN",
      DATABASE_URL: "postgresql://postgres@127.0.0.1:5432/test",
    });
    expect(config).toMatchObject({ port: 65535, metricsPort: 0, taskLeaseMs: 1000, shutdownGraceMs: 2147483647 });
    expect(config.logLevel).toBe("warn");
    expect(loadConfig({}).logFormat).toBeUndefined(); // decided by whether stderr is a terminal
    expect(loadConfig({ LOG_FORMAT: "json" }).logFormat).toBe("json");
  });
});

describe("TASK_RETENTION", () => {
  it("is unset by default (ended tasks are kept forever) and reads a duration with a unit", () => {
    expect(loadConfig({}).taskRetentionMs).toBeUndefined();
    expect(loadConfig({ TASK_RETENTION: "30d" }).taskRetentionMs).toBe(30 * 86_400_000);
    expect(loadConfig({ TASK_RETENTION: "1h" }).taskRetentionMs).toBe(3_600_000);
  });

  it.each(["30", "59m", "0d", "1.5d", "forever", "30 days"])("refuses %s, naming the variable", (value) => {
    expect(() => loadConfig({ TASK_RETENTION: value })).toThrow(ConfigError);
    expect(() => loadConfig({ TASK_RETENTION: value })).toThrow(/TASK_RETENTION must be a duration of at least 1h/);
  });
});

describe("push notification settings", () => {
  it("are on by default, with no allowed private hosts, a 24 h horizon and a dispatch thread", () => {
    expect(loadConfig({}).push).toEqual({
      enabled: true,
      allowedHosts: [],
      horizonMs: 86_400_000,
      maxRetryWaitMs: 3_600_000,
      dispatchThread: true,
    });
  });

  it("deliver from the server's own event loop with PUSH_DISPATCH_THREAD=off, and refuse any other word", () => {
    expect(loadConfig({ PUSH_DISPATCH_THREAD: "off" }).push.dispatchThread).toBe(false);
    expect(loadConfig({ PUSH_DISPATCH_THREAD: "ON" }).push.dispatchThread).toBe(true);
    expect(() => loadConfig({ PUSH_DISPATCH_THREAD: "worker" })).toThrow(
      'PUSH_DISPATCH_THREAD must be on or off (unset: on), got "worker"',
    );
  });
  // The PUSH_* variables' reading itself: a2a-core's node-runtime/push-settings.test.ts.
});

describe("gRPC settings", () => {
  it("are off without GRPC_PORT; with it, on HOST, cleartext, the card naming PUBLIC_URL's host", () => {
    expect(loadConfig({}).grpc).toBeUndefined();
    expect(loadConfig({ GRPC_PORT: "50051", PUBLIC_URL: "https://robots.example.com" }).grpc).toEqual({
      port: 50051,
      host: "127.0.0.1",
      tls: undefined,
      publicAddress: "robots.example.com:50051",
    });
    expect(
      loadConfig({
        GRPC_PORT: "50051",
        GRPC_HOST: "0.0.0.0",
        GRPC_TLS_KEY_FILE: "k.pem",
        GRPC_TLS_CERT_FILE: "c.pem",
        GRPC_PUBLIC_ADDRESS: "grpc.example.com:443",
      }).grpc,
    ).toEqual({
      port: 50051,
      host: "0.0.0.0",
      tls: { keyFile: "k.pem", certFile: "c.pem" },
      publicAddress: "grpc.example.com:443",
    });
  });

  it("refuse half a TLS pair, an address that is not host:port, and a port the card cannot name", () => {
    expect(() => loadConfig({ GRPC_PORT: "50051", GRPC_TLS_KEY_FILE: "k.pem" })).toThrow(/go together/);
    expect(() => loadConfig({ GRPC_PORT: "50051", GRPC_PUBLIC_ADDRESS: "https://x" })).toThrow(
      /GRPC_PUBLIC_ADDRESS must be host:port/,
    );
    expect(() => loadConfig({ GRPC_PORT: "0" })).toThrow(/GRPC_PUBLIC_ADDRESS/);
    expect(() => loadConfig({ GRPC_PORT: "70000" })).toThrow(/GRPC_PORT must be a TCP port/);
  });
});
