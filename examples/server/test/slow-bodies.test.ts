import { connect, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postgresAvailable } from "./support/backends.ts";
import { serverProcessPerSuite } from "./support/process-suite.ts";
import { envelope, post, rpc, startParams } from "./support/rpc.ts";
import {
  createPgliteStore,
  createPostgresStore,
  eventually,
  openStream,
  type ProcessStore,
  runCli,
} from "./support/server-process.ts";

// One token sending more requests than the server has in-flight slots, each announcing a body it never
// sends, holds only its own slots: another token of the same workspace still starts and polls tasks.

const GLOBAL = 12;
const PER_TOKEN = 4;
const SLOW = GLOBAL + 8;

/** A request whose headers promise a body that never comes; resolves with the status line, if any. */
function slowBody(url: string, token: string): { socket: Socket; status: Promise<number | undefined> } {
  const { hostname, port, pathname } = new URL(url);
  const socket = connect(Number(port), hostname, () => {
    socket.write(
      `POST ${pathname} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAuthorization: Bearer ${token}\r\n` +
        "Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n",
    );
  });
  const status = new Promise<number | undefined>((resolve) => {
    socket.setEncoding("utf8");
    socket.once("data", (chunk: string) => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(chunk)?.[1])));
    socket.on("error", () => resolve(undefined));
    socket.on("close", () => resolve(undefined));
  });
  return { socket, status };
}

const createStore: () => Promise<ProcessStore> = (await postgresAvailable()) ? createPostgresStore : createPgliteStore;

describe(`slow bodies (MAX_REQUESTS_IN_FLIGHT=${GLOBAL}, MAX_REQUESTS_IN_FLIGHT_PER_TOKEN=${PER_TOKEN})`, () => {
  const suite = serverProcessPerSuite(createStore, {
    env: {
      MAX_REQUESTS_IN_FLIGHT: String(GLOBAL),
      MAX_REQUESTS_IN_FLIGHT_PER_TOKEN: String(PER_TOKEN),
      RATE_LIMIT_PER_SECOND: "0",
      ROBOT_STEP_MS: "10",
    },
  });
  const held: Socket[] = [];
  let statuses: Promise<number | undefined>[] = [];
  let otherToken: string;

  beforeAll(async () => {
    const created = await runCli(["token", "create", "--workspace", "demo", "--kind", "partner"], suite.store.env);
    otherToken = created.stdout.trim();
    for (let i = 0; i < SLOW; i++) {
      const request = slowBody(suite.server.a2aUrl, suite.seeded.partnerToken);
      held.push(request.socket);
      statuses.push(request.status);
    }
  });

  afterAll(() => {
    for (const socket of held) socket.destroy();
    statuses = [];
  });

  it("answers the slow token's requests past its own cap at once (429), holding only its own slots", async () => {
    // Each request either holds one of the token's slots (its body never comes) or is refused at once:
    // 429 past the token's cap, or 503 if it arrived while the others still held global slots for auth.
    const answered = await eventually(
      async () => {
        const settled = await Promise.all(statuses.map((status) => Promise.race([status, Promise.resolve(0)])));
        const refused = settled.filter((status) => status !== 0);
        return refused.length === SLOW - PER_TOKEN ? refused : undefined;
      },
      { timeoutMs: 10_000, what: `${SLOW - PER_TOKEN} of the slow requests to be answered` },
    );
    expect(answered.every((status) => status === 429 || status === 503)).toBe(true);
    expect(answered).toContain(429);
  });

  it("still lets another token of the workspace start a task and poll it to its end", async () => {
    const stream = await openStream(
      suite.server.a2aUrl,
      otherToken,
      "SendStreamingMessage",
      startParams("Restock aisle 3"),
    );
    const taskId = (await stream.until((frame) => frame.event === "task")).result.id as string;
    stream.close();
    const state = await eventually(
      async () => {
        const polled = await rpc(suite.server.a2aUrl, otherToken, "GetTask", { id: taskId });
        expect(polled.status).toBe(200);
        const current = polled.body.result.status.state as string;
        return current === "completed" ? current : undefined;
      },
      { timeoutMs: 20_000, what: "the task to complete" },
    );
    expect(state).toBe("completed");
    // And as many at once as its own cap allows: all answered.
    const burst = await Promise.all(
      Array.from({ length: PER_TOKEN }, () =>
        post(suite.server.a2aUrl, envelope("GetTask", { id: taskId }), otherToken),
      ),
    );
    expect(burst.map((res) => res.status)).toEqual(Array(PER_TOKEN).fill(200));
  });
});
