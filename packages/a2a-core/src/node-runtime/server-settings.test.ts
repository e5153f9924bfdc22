import { describe, expect, it } from "vitest";
import {
  assertPublicUrlFits,
  cardSigningSettings,
  handlerLimitSettings,
  handlerLimits,
  httpSettings,
  telemetrySettings,
} from "./server-settings.js";
import { ConfigError } from "./settings.js";

describe("httpSettings", () => {
  it("listens on 127.0.0.1:8080 and names localhost in the card when nothing is set", () => {
    expect(httpSettings({})).toEqual({
      port: 8080,
      host: "127.0.0.1",
      publicUrl: "http://localhost:8080",
      publicUrlSet: false,
      requestTimeoutMs: 30_000,
      maxConnections: 20_000,
    });
  });

  it("reads every variable, and refuses a port it cannot listen on", () => {
    const env = { PORT: "9000", HOST: "0.0.0.0", PUBLIC_URL: "https://a2a.example.com/" };
    expect(httpSettings({ ...env, REQUEST_TIMEOUT_MS: "0", MAX_CONNECTIONS: "10" })).toEqual({
      port: 9000,
      host: "0.0.0.0",
      publicUrl: "https://a2a.example.com",
      publicUrlSet: true,
      requestTimeoutMs: 0,
      maxConnections: 10,
    });
    expect(() => httpSettings({ PORT: "99999" })).toThrow(/PORT must be a TCP port/);
  });
});

describe("assertPublicUrlFits", () => {
  it("refuses a non-loopback HOST without PUBLIC_URL, naming both and what the card would say", () => {
    const settings = httpSettings({ HOST: "0.0.0.0", PORT: "9000" });
    expect(() => assertPublicUrlFits(settings)).toThrow(ConfigError);
    expect(() => assertPublicUrlFits(settings)).toThrow(
      /HOST=0\.0\.0\.0 .* PUBLIC_URL is not set, .* http:\/\/localhost:9000/,
    );
  });

  it("accepts a non-loopback HOST with PUBLIC_URL, and any loopback HOST without it", () => {
    expect(() =>
      assertPublicUrlFits(httpSettings({ HOST: "0.0.0.0", PUBLIC_URL: "https://a2a.example.com" })),
    ).not.toThrow();
    expect(() => assertPublicUrlFits(httpSettings({}))).not.toThrow();
    expect(() => assertPublicUrlFits(httpSettings({ HOST: "::1" }))).not.toThrow();
  });
});

describe("handlerLimits", () => {
  it("passes each limit the settings hold to the handler's options", () => {
    expect(handlerLimits(handlerLimitSettings({}))).toEqual({
      rateLimit: { requestsPerSecond: 1000 },
      maxOpenStreamsPerCaller: 1000,
      maxRequestsInFlight: 2048,
      maxRequestsInFlightPerCaller: 256,
    });
  });

  it("leaves out a limit set to 0 (off)", () => {
    const off = { RATE_LIMIT_PER_SECOND: "0", MAX_STREAMS_PER_TOKEN: "0", MAX_REQUESTS_IN_FLIGHT: "0" };
    expect(handlerLimits(handlerLimitSettings({ ...off, MAX_REQUESTS_IN_FLIGHT_PER_TOKEN: "0" }))).toEqual({});
    expect(() => handlerLimitSettings({ RATE_LIMIT_PER_SECOND: "1e3" })).toThrow(
      /RATE_LIMIT_PER_SECOND must be a non-negative integer/,
    );
  });
});

describe("telemetrySettings and cardSigningSettings", () => {
  it("open no scrape endpoint unless METRICS_PORT is set, on loopback unless told", () => {
    expect(telemetrySettings({})).toEqual({ metricsPort: undefined, metricsHost: "127.0.0.1" });
    expect(telemetrySettings({ METRICS_PORT: "0", METRICS_HOST: "0.0.0.0" })).toEqual({
      metricsPort: 0,
      metricsHost: "0.0.0.0",
    });
  });

  it("read the card's signing key settings, empty as unset", () => {
    expect(cardSigningSettings({ AGENT_CARD_SIGNING_KEY_FILE: "k.pem", AGENT_CARD_SIGNING_KID: "" })).toEqual({
      keyFile: "k.pem",
      kid: undefined,
      alg: undefined,
    });
  });
});
