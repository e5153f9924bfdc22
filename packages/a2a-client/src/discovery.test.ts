import { http } from "msw";
import { describe, expect, it } from "vitest";
import { agentCard, BASE_URL, ENDPOINT, task } from "../test/support/fixtures.js";
import { mockEndpoint, testClient } from "../test/support/mock-endpoint.js";
import { A2AClient } from "./client.js";
import { isA2AClientError, UntrustedEndpointError } from "./errors.js";

const { server } = mockEndpoint();

/** Serves `cardBody` at `cardUrl` and records every request that carries a token, wherever it goes. */
function serve(cardUrl: string, endpoint: string) {
  const withToken: string[] = [];
  server.use(
    http.get(cardUrl, () => Response.json(agentCard(endpoint))),
    http.all("*", ({ request }) => {
      if (request.headers.has("authorization")) withToken.push(request.url);
      return Response.json({ jsonrpc: "2.0", id: 1, result: task() });
    }),
  );
  return withToken;
}

const cardAt = (origin: string) => `${origin}/.well-known/agent-card.json`;

describe("discover() and the card's endpoint", () => {
  it("follows an endpoint on the card's own origin, whatever its path", async () => {
    const withToken = serve(cardAt(BASE_URL), `${BASE_URL}/custom/rpc`);
    const { client } = testClient();
    await client.discover();
    expect(client.endpoint).toBe(`${BASE_URL}/custom/rpc`);
    await client.getTask("task-1");
    expect(withToken).toEqual([`${BASE_URL}/custom/rpc`]);
  });

  it("refuses an endpoint on another host by default, and sends the token nowhere", async () => {
    const withToken = serve(cardAt(BASE_URL), "http://collector.evil.test/api/v1/a2a");
    const { client } = testClient();
    const refused = await client.discover().catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(UntrustedEndpointError);
    expect(isA2AClientError(refused)).toBe(true);
    expect(refused).toMatchObject({
      reason: "cross-origin",
      endpoint: "http://collector.evil.test/api/v1/a2a",
      cardUrl: cardAt(BASE_URL),
    });
    expect((refused as Error).message).toMatch(
      /another origin, http:\/\/collector\.evil\.test.*allowCrossOriginEndpoint/,
    );
    // The endpoint in use is still the one from baseUrl.
    expect(client.endpoint).toBe(ENDPOINT);
    expect(withToken).toEqual([]);
  });

  it("refuses another port or scheme on the same host too: an origin is scheme, host and port", async () => {
    for (const endpoint of ["http://a2a.test:8443/api/v1/a2a", "https://a2a.test/api/v1/a2a"]) {
      serve(cardAt(BASE_URL), endpoint);
      const { client } = testClient();
      await expect(client.discover()).rejects.toMatchObject({ name: "UntrustedEndpointError", reason: "cross-origin" });
    }
  });

  it("follows another origin when the caller opts in", async () => {
    const withToken = serve(cardAt(BASE_URL), "https://edge.a2a.test/rpc");
    const { client } = testClient({ allowCrossOriginEndpoint: true });
    await client.discover();
    await client.getTask("task-1");
    expect(withToken).toEqual(["https://edge.a2a.test/rpc"]);
  });

  it("refuses a downgrade from an https card to a plain-http endpoint, even when cross-origin is opted in", async () => {
    const secure = "https://secure.a2a.test";
    for (const endpoint of ["http://secure.a2a.test/api/v1/a2a", "http://elsewhere.test/api/v1/a2a"]) {
      const withToken = serve(cardAt(secure), endpoint);
      const { client } = testClient({ baseUrl: secure, allowCrossOriginEndpoint: true });
      const refused = await client.discover().catch((error: unknown) => error);
      expect(refused).toMatchObject({ name: "UntrustedEndpointError", reason: "insecure", endpoint });
      expect((refused as Error).message).toMatch(/plain-http endpoint/);
      expect(withToken).toEqual([]);
      await client.close();
    }
  });

  it("follows an https card to plain http only with allowInsecureEndpoint as well", async () => {
    const secure = "https://secure.a2a.test";
    const endpoint = "http://secure.a2a.test/api/v1/a2a";
    const withToken = serve(cardAt(secure), endpoint);
    // http://secure… is another origin than https://secure…: both opt-ins are needed.
    const { client } = testClient({ baseUrl: secure, allowCrossOriginEndpoint: true, allowInsecureEndpoint: true });
    await client.discover();
    await client.getTask("task-1");
    expect(withToken).toEqual([endpoint]);
    await client.close();
  });

  it("with only agentCardUrl, the first call fails with the refusal instead of sending the token", async () => {
    const withToken = serve("http://cards.test/agent.json", "http://other.test/api/v1/a2a");
    const client = new A2AClient({ agentCardUrl: "http://cards.test/agent.json", token: "t", dispatcher: false });
    await expect(client.getTask("task-1")).rejects.toBeInstanceOf(UntrustedEndpointError);
    expect(client.endpoint).toBeUndefined();
    expect(withToken).toEqual([]);
  });

  it("follows an endpoint on baseUrl's origin when the card is read from elsewhere", async () => {
    const withToken = serve("http://cards.test/agent.json", `${BASE_URL}/rpc`);
    const client = new A2AClient({
      baseUrl: BASE_URL,
      agentCardUrl: "http://cards.test/agent.json",
      token: "t",
      dispatcher: false,
    });
    await client.discover();
    await client.getTask("task-1");
    expect(withToken).toEqual([`${BASE_URL}/rpc`]);
  });
});
