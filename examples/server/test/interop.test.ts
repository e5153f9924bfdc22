// The official A2A JS SDK (@a2a-js/sdk 1.3) as a partner would use it against the reference server: its
// v0.3 JSON-RPC transport (`message/stream`, `tasks/get`, `tasks/cancel`, `tasks/resubscribe`), its agent
// card resolver and its ClientFactory. docs/interop.md explains what works, what differs, and why.
import { type StreamResponse, TaskState } from "@a2a-js/sdk";
import {
  ClientFactory,
  ClientFactoryOptions,
  createAuthenticatingFetchWithRetry,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
} from "@a2a-js/sdk/client";
import { LegacyJsonRpcTransport } from "@a2a-js/sdk/compat/v0_3/client";
import { TaskNotCancelableError, TaskNotFoundError } from "@a2a-js/sdk/errors";
import { bearerInterceptor, collect, taskStart } from "@a2a-partner/test-support/a2a-sdk";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { loggedSeqs } from "./support/event-log.ts";
import { frontedServerPerSuite } from "./support/fronted-server.ts";

type Payload = NonNullable<StreamResponse["payload"]>;
const payloadCase = (event: StreamResponse) => event.payload?.$case;
function payloadOf<C extends Payload["$case"]>(event: StreamResponse | undefined, kind: C) {
  const payload = event?.payload;
  if (payload?.$case !== kind) throw new Error(`expected a ${kind} event, got ${payload?.$case}`);
  return payload.value as Extract<Payload, { $case: C }>["value"];
}
const stateOf = (event: StreamResponse | undefined) => {
  const payload = event?.payload;
  if (payload?.$case === "task" || payload?.$case === "statusUpdate") return payload.value.status?.state;
  return undefined;
};
const TERMINAL = new Set([
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_REJECTED,
]);

describe("the official @a2a-js/sdk client against the reference server (PGlite)", () => {
  const bed = frontedServerPerSuite({ robotStepMs: 40 });
  let endpoint: string;
  /** Every request the SDK sent: URL, JSON-RPC method, headers. */
  let wire: Array<{ url: string; method: string | undefined; headers: Headers }> = [];

  beforeAll(() => {
    endpoint = `${bed.front.url}/api/v1/a2a`;
  });
  beforeEach(() => {
    wire = [];
  });

  const recordingFetch: typeof fetch = async (input, init) => {
    let method: string | undefined;
    try {
      method = (JSON.parse(String(init?.body)) as { method?: string }).method;
    } catch {
      // a GET (the agent card)
    }
    wire.push({ url: String(input), method, headers: new Headers(init?.headers) });
    return fetch(input, init);
  };

  /** The SDK's own way to add a credential to every request of a transport. */
  const authenticatingFetch = () =>
    createAuthenticatingFetchWithRetry(recordingFetch, {
      headers: async () => ({ Authorization: `Bearer ${bed.token}` }),
      shouldRetryWithHeaders: async () => undefined,
    });

  const legacyTransport = (url = endpoint) =>
    new LegacyJsonRpcTransport({ endpoint: url, fetchImpl: authenticatingFetch() });

  it("streams a task to its terminal state over message/stream, reading every frame (final included)", async () => {
    const events = await collect(legacyTransport().sendMessageStream(taskStart("Restock aisle 5")));

    expect(wire.map((r) => r.method)).toEqual(["message/stream"]);
    expect(wire[0]?.headers.get("authorization")).toBe(`Bearer ${bed.token}`);
    const task = payloadOf(events[0], "task");
    expect(task.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    expect(task.metadata).toMatchObject({ storeId: "store-001" });

    // task, updates (robot progress, an artifact), the one terminal status update (`finished`), and the
    // terminal Task of the `final` frame: the SDK ignores event names and yields every frame's result.
    const cases = events.map(payloadCase);
    expect(cases.at(0)).toBe("task");
    expect(cases.slice(-2)).toEqual(["statusUpdate", "task"]);
    expect(cases).toContain("artifactUpdate");
    const progress = events.filter((e) => payloadCase(e) === "statusUpdate").slice(0, -1);
    expect(progress.length).toBeGreaterThanOrEqual(3);
    for (const update of progress) {
      expect(stateOf(update)).toBe(TaskState.TASK_STATE_WORKING);
      expect(payloadOf(update, "statusUpdate").metadata).toMatchObject({
        robot: expect.any(String),
        step: expect.any(Number),
      });
    }
    expect(events.filter((e) => TERMINAL.has(stateOf(e) as TaskState)).map(payloadCase)).toEqual([
      "statusUpdate",
      "task",
    ]);
    expect(stateOf(events.at(-2))).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(payloadOf(events.at(-1), "task")).toMatchObject({
      id: task.id,
      status: { state: TaskState.TASK_STATE_COMPLETED },
    });
    for (const event of events.slice(1, -1)) {
      expect(event.payload?.value).toMatchObject({ taskId: task.id });
    }
    // One SDK event per logged event, plus the `final` trailer.
    expect(events).toHaveLength((await loggedSeqs(bed.database.db, task.id)).length + 1);
  });

  it("polls with tasks/get, cancels with tasks/cancel and reattaches with tasks/resubscribe", async () => {
    const transport = legacyTransport();
    const leave = new AbortController();
    let id = "";
    try {
      for await (const event of transport.sendMessageStream(taskStart("Count inventory in aisle 7"), {
        signal: leave.signal,
      })) {
        id = payloadOf(event, "task").id;
        leave.abort(); // the partner goes away; the task goes on
      }
    } catch (error) {
      expect((error as Error).name).toBe("AbortError");
    }
    expect(id).not.toBe("");

    const polled = await transport.getTask({ tenant: "", id, historyLength: undefined });
    expect(polled).toMatchObject({ id, status: { state: TaskState.TASK_STATE_WORKING } });
    expect(polled.history.length).toBeGreaterThan(0);

    const canceled = await transport.cancelTask({ tenant: "", id, metadata: undefined });
    expect(canceled).toMatchObject({ id, status: { state: TaskState.TASK_STATE_CANCELED } });
    await expect(transport.cancelTask({ tenant: "", id, metadata: undefined })).rejects.toBeInstanceOf(
      TaskNotCancelableError,
    );
    await expect(
      transport.getTask({ tenant: "", id: crypto.randomUUID(), historyLength: undefined }),
    ).rejects.toBeInstanceOf(TaskNotFoundError);

    const reattached = await collect(transport.resubscribeTask({ tenant: "", id }));
    expect(reattached.map(payloadCase)).toEqual(["task", "statusUpdate", "task"]);
    expect(reattached.map(stateOf).slice(1)).toEqual([TaskState.TASK_STATE_CANCELED, TaskState.TASK_STATE_CANCELED]);

    expect(wire.map((r) => r.method)).toEqual([
      "message/stream",
      "tasks/get",
      "tasks/cancel",
      "tasks/cancel",
      "tasks/get",
      "tasks/resubscribe",
    ]);
  });

  it("resolves the agent card with the SDK's resolver; its JSONRPC interface is the endpoint the SDK streams from", async () => {
    const card = await new DefaultAgentCardResolver({ fetchImpl: recordingFetch }).resolve(bed.front.url);
    expect(wire).toHaveLength(1);
    expect(wire[0]?.url).toBe(`${bed.front.url}/.well-known/agent-card.json`);
    expect(wire[0]?.headers.get("authorization")).toBeNull();
    expect(card.name).toBe("Store Operations Robots");
    expect(card.capabilities?.streaming).toBe(true);
    const jsonRpc = card.supportedInterfaces.find((i) => i.protocolBinding === "JSONRPC");
    expect(jsonRpc?.url).toBe(endpoint);
    expect(card.securitySchemes.bearer?.scheme).toMatchObject({
      $case: "httpAuthSecurityScheme",
      value: { scheme: "Bearer" },
    });

    const events = await collect(legacyTransport(jsonRpc?.url).sendMessageStream(taskStart("Restock aisle 2")));
    expect(stateOf(events.at(-2))).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  /** A ClientFactory as the SDK documents it for v0.3 peers; the token comes from a call interceptor. */
  function sdkFactory(cardFetch: typeof fetch = recordingFetch): ClientFactory {
    const bearer = bearerInterceptor(bed.token);
    return new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        transports: [new JsonRpcTransportFactory({ legacyCompat: { enabled: true }, fetchImpl: recordingFetch })],
        cardResolver: new DefaultAgentCardResolver({ legacyCompat: { enabled: true }, fetchImpl: cardFetch }),
        clientConfig: { interceptors: [bearer] },
      }),
    );
  }

  async function streamThroughClient(factory: ClientFactory) {
    const client = await factory.createFromUrl(bed.front.url);
    const events = await collect(client.sendMessageStream(taskStart("Restock aisle 4")));
    const task = payloadOf(events[0], "task");
    expect(await client.getTask({ tenant: "", id: task.id, historyLength: undefined })).toMatchObject({
      status: { state: TaskState.TASK_STATE_COMPLETED },
    });
    return { client, events };
  }

  it("ClientFactory.createFromUrl (legacyCompat) reads the card and runs a task to completion", async () => {
    const { client, events } = await streamThroughClient(sdkFactory());
    // The card offers the endpoint as A2A 1.0 and 0.3; even with legacyCompat on, the factory prefers 1.0
    // (the v1.0 dialect, chosen by the A2A-Version header it sends). client/index.js bundles its own copy
    // of each transport: check what it speaks, not its class.
    expect(client.protocolVersion).toBe("1.0");
    expect(wire.map((r) => r.method)).toEqual([undefined, "SendStreamingMessage", "GetTask"]);
    expect(wire.slice(1).map((r) => r.headers.get("a2a-version"))).toEqual(["1.0", "1.0"]);
    // The interceptor put the token on the calls; the public card was fetched without it.
    expect(wire.map((r) => r.headers.get("authorization"))).toEqual([
      null,
      `Bearer ${bed.token}`,
      `Bearer ${bed.token}`,
    ]);
    expect(stateOf(events.at(-2))).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it("reports a refused storeId and a bad token as JSON-RPC errors the SDK can read", async () => {
    const refused = await collect(legacyTransport().sendMessageStream(taskStart("Restock", "store-999"))).catch(
      (e: unknown) => e,
    );
    expect(refused).toMatchObject({ envelopeCode: -32602, data: { field: "params.metadata.storeId" } });

    const anonymous = new LegacyJsonRpcTransport({ endpoint, fetchImpl: recordingFetch });
    const unauthorized = await anonymous
      .getTask({ tenant: "", id: crypto.randomUUID(), historyLength: undefined })
      .catch((e: unknown) => e);
    // The 401's JSON-RPC body (-32600) reaches the caller; the SDK does not keep the HTTP status.
    expect(unauthorized).toMatchObject({ envelopeCode: -32600 });
    expect(String((unauthorized as Error).message)).toMatch(/token/i);
  });
});
