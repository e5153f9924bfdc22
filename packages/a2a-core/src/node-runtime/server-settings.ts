import type { CardSigningSettings } from "./card-signing-key.js";
import type { HttpServerLimits } from "./process/http-listen.js";
import {
  ConfigError,
  integerSetting,
  isLoopbackHost,
  millisecondsSetting,
  portSetting,
  publicUrlSetting,
} from "./settings.js";

// The settings every A2A server on Node reads, grouped as the pieces that take them do: the HTTP
// listener (`createHttpServer`, `listenHttp`), the handler's limits, the scrape endpoint
// (`startTelemetry`), the card's signing key (`loadCardSigning`).

/** Where a server listens and how peers reach it (`httpSettings`). */
export interface HttpSettings extends HttpServerLimits {
  /** PORT (default 8080; 0 picks a free one). */
  port: number;
  /** HOST (default 127.0.0.1). */
  host: string;
  /** PUBLIC_URL: the base URL peers use, the agent card's URLs are built from it; default `http://localhost:<port>`. */
  publicUrl: string;
  /** Whether PUBLIC_URL was set (else `publicUrl` is the localhost default). */
  publicUrlSet: boolean;
}

/** PORT, HOST, PUBLIC_URL, REQUEST_TIMEOUT_MS (default 30 s) and MAX_CONNECTIONS (default 20,000; 0: no bound). */
export function httpSettings(env: NodeJS.ProcessEnv): HttpSettings {
  const port = portSetting(env.PORT, 8080, "PORT");
  return {
    port,
    host: env.HOST || "127.0.0.1",
    publicUrl: publicUrlSetting(env.PUBLIC_URL, port),
    publicUrlSet: Boolean(env.PUBLIC_URL),
    requestTimeoutMs: millisecondsSetting(env.REQUEST_TIMEOUT_MS, 30_000, "REQUEST_TIMEOUT_MS"),
    maxConnections: integerSetting(env.MAX_CONNECTIONS, 20_000, "MAX_CONNECTIONS"),
  };
}

/**
 * Refuses to serve on an address other machines can reach while the agent card would advertise
 * `http://localhost:<PORT>`: remote partners would be sent to their own machine (or, with a client that
 * follows the card, refused). For a server about to listen; a command that never listens need not ask.
 */
export function assertPublicUrlFits(settings: HttpSettings): void {
  if (settings.publicUrlSet || isLoopbackHost(settings.host)) return;
  throw new ConfigError(
    `HOST=${settings.host} accepts connections from other machines, but PUBLIC_URL is not set, so the agent ` +
      `card would send partners to ${settings.publicUrl}. Set PUBLIC_URL to the URL partners use ` +
      `(e.g. https://a2a.example.com), or listen on 127.0.0.1.`,
  );
}

/** The A2A handler's bounds per server and per caller (`handlerLimitSettings`); 0 turns each off. */
export interface HandlerLimitSettings {
  /** RATE_LIMIT_PER_SECOND (1000): sustained requests per second per token (burst twice that); over it, 429. */
  rateLimitPerSecond: number;
  /** MAX_STREAMS_PER_TOKEN (1000): open SSE streams one token may hold at once; one more is 429. */
  maxStreamsPerToken: number;
  /** MAX_REQUESTS_IN_FLIGHT (2048): requests answered at once; one more is 503 with Retry-After. */
  maxRequestsInFlight: number;
  /**
   * MAX_REQUESTS_IN_FLIGHT_PER_TOKEN (256): requests one token may have in flight (its body read
   * included); one more is 429.
   */
  maxRequestsInFlightPerToken: number;
}

export function handlerLimitSettings(env: NodeJS.ProcessEnv): HandlerLimitSettings {
  return {
    rateLimitPerSecond: integerSetting(env.RATE_LIMIT_PER_SECOND, 1000, "RATE_LIMIT_PER_SECOND"),
    maxStreamsPerToken: integerSetting(env.MAX_STREAMS_PER_TOKEN, 1000, "MAX_STREAMS_PER_TOKEN"),
    maxRequestsInFlight: integerSetting(env.MAX_REQUESTS_IN_FLIGHT, 2_048, "MAX_REQUESTS_IN_FLIGHT"),
    maxRequestsInFlightPerToken: integerSetting(
      env.MAX_REQUESTS_IN_FLIGHT_PER_TOKEN,
      256,
      "MAX_REQUESTS_IN_FLIGHT_PER_TOKEN",
    ),
  };
}

/** `createA2AHandler`'s options for these limits, leaving out each one that is 0 (off). */
export function handlerLimits(settings: HandlerLimitSettings): {
  rateLimit?: { requestsPerSecond: number };
  maxOpenStreamsPerCaller?: number;
  maxRequestsInFlight?: number;
  maxRequestsInFlightPerCaller?: number;
} {
  const { rateLimitPerSecond, maxStreamsPerToken, maxRequestsInFlight, maxRequestsInFlightPerToken } = settings;
  return {
    ...(rateLimitPerSecond > 0 ? { rateLimit: { requestsPerSecond: rateLimitPerSecond } } : {}),
    ...(maxStreamsPerToken > 0 ? { maxOpenStreamsPerCaller: maxStreamsPerToken } : {}),
    ...(maxRequestsInFlight > 0 ? { maxRequestsInFlight } : {}),
    ...(maxRequestsInFlightPerToken > 0 ? { maxRequestsInFlightPerCaller: maxRequestsInFlightPerToken } : {}),
  };
}

/** The Prometheus scrape endpoint `startTelemetry` opens (`telemetrySettings`). */
export interface TelemetrySettings {
  /** METRICS_PORT; unset: no scrape endpoint. 0 picks a free one. */
  metricsPort: number | undefined;
  /** METRICS_HOST: loopback unless set, so the endpoint is never public by accident. */
  metricsHost: string;
}

export function telemetrySettings(env: NodeJS.ProcessEnv): TelemetrySettings {
  return {
    metricsPort: env.METRICS_PORT ? portSetting(env.METRICS_PORT, 0, "METRICS_PORT") : undefined,
    metricsHost: env.METRICS_HOST || "127.0.0.1",
  };
}

/** AGENT_CARD_SIGNING_KEY_FILE, _KID and _ALG, for `loadCardSigning`; unset key file: an unsigned card. */
export function cardSigningSettings(env: NodeJS.ProcessEnv): CardSigningSettings {
  return {
    keyFile: env.AGENT_CARD_SIGNING_KEY_FILE || undefined,
    kid: env.AGENT_CARD_SIGNING_KID || undefined,
    alg: env.AGENT_CARD_SIGNING_ALG || undefined,
  };
}
