/**
 * Slow bodies (issue 30, item 3), measured from outside: the reference server with its default settings
 * on a fresh PostgreSQL database; one token sends 2,200 requests whose headers announce a body that never
 * comes, then another token of the same workspace starts a task and polls it to its end. Prints how the
 * slow requests were answered and how long the other token's requests took.
 *
 *   node bench/a2a/slow-bodies.ts                    # 2,200 slow requests
 *   node bench/a2a/slow-bodies.ts --slow 3000
 *   node bench/a2a/slow-bodies.ts --per-token 0      # without the per-token bound
 *
 * Target (issue 30): the other token still starts and polls tasks. Without a per-token bound, the slow
 * token held every slot of MAX_REQUESTS_IN_FLIGHT (2,048) until REQUEST_TIMEOUT_MS and the other got 503.
 */
import { connect, type Socket } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import {
  createPostgresStore,
  runCli,
  seedWithCli,
  startServerProcess,
} from "../../examples/server/test/support/server-process.ts";
import { benchFlags } from "../flags.ts";
import { oursDialect } from "./dialects.ts";

// --per-token: MAX_REQUESTS_IN_FLIGHT_PER_TOKEN ("" keeps the server's default; 0 turns the bound off).
const args = benchFlags({ slow: "2200", "per-token": "" });
const SLOW = Number(args.slow);

const store = await createPostgresStore();
const sockets: Socket[] = [];
try {
  const seeded = await seedWithCli(store.env);
  const other = (
    await runCli(["token", "create", "--workspace", "demo", "--kind", "partner"], store.env)
  ).stdout.trim();
  const server = await startServerProcess({
    ...store.env,
    LOG_LEVEL: "info",
    ...(args["per-token"] === "" ? {} : { MAX_REQUESTS_IN_FLIGHT_PER_TOKEN: args["per-token"] }),
  });
  const { hostname, port, pathname } = new URL(server.a2aUrl);
  const statuses = new Map<string, number>();
  const count = (status: string) => statuses.set(status, (statuses.get(status) ?? 0) + 1);
  for (let i = 0; i < SLOW; i++) {
    const socket = connect(Number(port), hostname, () => {
      socket.write(
        `POST ${pathname} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAuthorization: Bearer ${seeded.partnerToken}\r\n` +
          "Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n",
      );
    });
    socket.setEncoding("utf8");
    socket.once("data", (chunk: string) => count(/^HTTP\/1\.1 (\d{3})/.exec(chunk)?.[1] ?? "other"));
    socket.on("error", () => count("error"));
    sockets.push(socket);
  }
  await sleep(3_000);
  const answered = [...statuses.values()].reduce((a, b) => a + b, 0);
  console.log(
    `${SLOW} slow requests from one token: ${answered} answered at once (${[...statuses].map(([s, n]) => `${s} ×${n}`).join(", ")}), ${SLOW - answered} held`,
  );

  /** The other token's start and polls, as a partner sends them. */
  const otherToken = async (): Promise<void> => {
    const dialect = oursDialect(other, "store-001");
    const headers = dialect.headers;
    const t0 = performance.now();
    const controller = new AbortController();
    const res = await fetch(server.a2aUrl, {
      method: "POST",
      headers,
      body: dialect.start(crypto.randomUUID()),
      signal: controller.signal,
    });
    if (res.status !== 200 || !res.body) {
      console.log(`the other token's start: HTTP ${res.status} ${(await res.text()).slice(0, 160)}`);
      console.log("target (the other token still starts and polls tasks): NOT MET");
      process.exitCode = 1;
      return;
    }
    const { value } = await res.body.getReader().read();
    controller.abort();
    const taskId = /"id":"([0-9a-f-]{36})"/.exec(new TextDecoder().decode(value))?.[1];
    const startedMs = performance.now() - t0;
    let polls = 0;
    let state = "";
    const pollMs: number[] = [];
    while (state !== "completed" && polls < 200) {
      const p0 = performance.now();
      const poll = await fetch(server.a2aUrl, {
        method: "POST",
        headers,
        body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "GetTask", params: { id: taskId } }),
      });
      pollMs.push(performance.now() - p0);
      if (poll.status !== 200) throw new Error(`the other token's poll: HTTP ${poll.status} ${await poll.text()}`);
      state = ((await poll.json()) as { result: { status: { state: string } } }).result.status.state;
      polls++;
      if (state !== "completed") await sleep(250);
    }
    console.log(
      `the other token: started a task in ${startedMs.toFixed(1)} ms; ${polls} polls (max ${Math.max(...pollMs).toFixed(1)} ms) until "${state}"`,
    );
    console.log(`target (the other token still starts and polls tasks): ${state === "completed" ? "MET" : "NOT MET"}`);
  };
  await otherToken();
  await server.kill("SIGKILL");
} finally {
  for (const socket of sockets) socket.destroy();
  await store.drop();
}
