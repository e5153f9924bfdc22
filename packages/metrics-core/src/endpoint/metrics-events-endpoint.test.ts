import { describe, expect, it } from "vitest";
import { createMetricsEventsEndpoint, type MetricsRefusal } from "./metrics-events-endpoint.js";

const NO_DATABASE = {
  query: async () => {
    throw new Error("not reached");
  },
};

function endpoint(options: { ratePerSecond?: number; refused?: MetricsRefusal[] } = {}) {
  return createMetricsEventsEndpoint({
    db: NO_DATABASE,
    ratePerSecond: options.ratePerSecond ?? 0,
    now: () => 0,
    authenticate: async (authorization) =>
      authorization === "Bearer user"
        ? { ok: true, caller: "user-1", limitKey: "user-1" }
        : { ok: false, status: 401, detail: "Missing bearer token", challenge: "Bearer" },
    findWorkspace: async (_caller, workspace) => (workspace === "mine" ? { id: "ws" } : undefined),
    onRefused: (refusal) => options.refused?.push(refusal),
  });
}

const request = (authorization: string | undefined, workspace: string, query = "") => ({
  authorization,
  workspace,
  query: new URLSearchParams(query),
});

describe("the metrics endpoint, before it reads any count", () => {
  it("refuses a missing credential with its challenge, and says so to onRefused", async () => {
    const refused: MetricsRefusal[] = [];
    const answer = await endpoint({ refused })(request(undefined, "mine"));
    expect(answer).toMatchObject({ status: 401, problem: true, body: { title: "Unauthorized" } });
    expect(answer.headers).toEqual({ "cache-control": "private, no-store", "www-authenticate": "Bearer" });
    expect(refused).toHaveLength(1);
  });

  it("limits a caller past its burst, with Retry-After", async () => {
    const events = endpoint({ ratePerSecond: 1 });
    await events(request("Bearer user", "other"));
    await events(request("Bearer user", "other"));
    const third = await events(request("Bearer user", "other"));
    expect(third).toMatchObject({ status: 429, headers: { "retry-after": "1" } });
  });

  it("names an unknown query parameter, then a bad window, then answers 404 for a workspace not readable", async () => {
    const events = endpoint();
    expect(await events(request("Bearer user", "mine", "start=1"))).toMatchObject({
      status: 400,
      body: { parameter: "start", reason: "unknown_parameter" },
    });
    expect(await events(request("Bearer user", "mine", "start_timestamp=x"))).toMatchObject({
      status: 400,
      body: { parameter: "start_timestamp" },
    });
    expect(await events(request("Bearer user", "theirs"))).toMatchObject({ status: 404, problem: true });
  });
});
