import { http } from "msw";
import { setupServer } from "msw/node";
import { afterAll, afterEach, beforeAll } from "vitest";
import { A2AClient } from "../../src/client.js";
import type { A2AClientOptions, RetryInfo } from "../../src/options.js";
import { BASE_URL, ENDPOINT, readRequest, recordingSleep, type SeenRequest } from "./fixtures.js";

/**
 * An msw server for one test file, mocking the A2A endpoint. `script` answers the n-th request (0-based)
 * with `respond(n, request)` and records every request.
 */
export function mockEndpoint() {
  const server = setupServer();
  beforeAll(() => server.listen({ onUnhandledFrame: "error" }));
  afterEach(() => server.resetHandlers());
  afterAll(() => server.close());
  return {
    server,
    script(respond: (n: number, request: SeenRequest) => Response | Promise<Response>): SeenRequest[] {
      const seen: SeenRequest[] = [];
      server.use(
        http.post(ENDPOINT, async ({ request }) => {
          const parsed = await readRequest(request);
          seen.push(parsed);
          return respond(seen.length - 1, parsed);
        }),
      );
      return seen;
    },
  };
}

/** A client for the mocked endpoint that records its retries and backoff delays instead of sleeping. */
export function testClient(options: Partial<A2AClientOptions> = {}) {
  const { sleep, delays } = recordingSleep();
  const retries: RetryInfo[] = [];
  const instance = new A2AClient({
    baseUrl: BASE_URL,
    token: "a2a_p_secret",
    sleep,
    random: () => 0,
    // Node's own fetch connection pool: msw's socket-level mocks trip an assertion in undici 8 after an abort.
    dispatcher: false,
    onRetry: (info) => retries.push(info),
    ...options,
  });
  return { client: instance, delays, retries };
}
