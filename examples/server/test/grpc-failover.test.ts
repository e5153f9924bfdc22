import { A2AClient, TaskNotFoundError, type TaskStreamEvent } from "@a2a-partner/a2a-client";
import { grpcTransport } from "@a2a-partner/a2a-client/grpc";
import { ORPHANED_REASON } from "@a2a-partner/a2a-core";
import { freePort } from "@a2a-partner/test-support/local-processes";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postgresAvailable } from "./support/backends.ts";
import { loggedSeqs } from "./support/event-log.ts";
import { leaseTestBed } from "./support/lease-test-bed.ts";
import { createPostgresStore, eventually, type ServerProcess, statusText } from "./support/server-process.ts";

// Two server processes on one PostgreSQL database, each with its gRPC binding; the typed client dials
// both addresses as one target (as it would a DNS name with two records). The instance a gRPC stream is
// on is SIGKILLed: the client reattaches on the other over gRPC and sees every event of the task once.

/** The server once its gRPC port is open too: it logs that after the HTTP listener's line. */
async function servingGrpc(started: Promise<ServerProcess>): Promise<ServerProcess> {
  const server = await started;
  await eventually(async () => (server.log().includes("gRPC binding listening") ? true : undefined), {
    timeoutMs: 10_000,
    what: "the gRPC binding",
  });
  return server;
}

describe.skipIf(!(await postgresAvailable()))("the typed client over gRPC, two instances, one killed", () => {
  const bed = leaseTestBed(createPostgresStore);
  let a: ServerProcess;
  let client: A2AClient;
  const resumes: string[] = [];

  beforeAll(async () => {
    const [portA, portB] = [await freePort(), await freePort()];
    a = await servingGrpc(bed.serve({ GRPC_PORT: String(portA), GRPC_HOST: "127.0.0.1" }));
    const [onA, onB] = [`127.0.0.1:${portA}`, `127.0.0.1:${portB}`];
    client = new A2AClient({
      baseUrl: a.url,
      token: bed.token,
      binding: "grpc",
      grpc: grpcTransport(),
      // grpc-js's pick_first: the first address that connects, then stays on it while it answers.
      grpcAddress: `ipv4:${onA},${onB}`,
      backoff: { initialDelayMs: 100, maxDelayMs: 500 },
      onRetry: (info) => resumes.push(info.kind),
    });
    // The channel connects while B is not up yet, so it is on A: pick_first also tries the next address
    // when the first is slow to connect (250 ms), and on a loaded machine B could win the race.
    await expect(client.getTask(crypto.randomUUID())).rejects.toBeInstanceOf(TaskNotFoundError);
    // B, the survivor, runs until the suite's end (the bed stops every process).
    await servingGrpc(bed.serve({ GRPC_PORT: String(portB), GRPC_HOST: "127.0.0.1" }));
  });

  afterAll(async () => {
    await client?.close();
  });

  it("reattaches on B after A dies mid-stream: the task's every event once, ended by B's sweep", async () => {
    const stream = client.sendStreamingMessage({ text: "Restock aisle 8", storeId: "store-001" });
    const events: TaskStreamEvent[] = [];
    for await (const event of stream) {
      events.push(event);
      if (events.filter((e) => e.type === "update").length === 1) await a.kill("SIGKILL");
    }

    expect(resumes).toContain("resume");
    expect(events.map((e) => Number(e.eventId))).toEqual(await loggedSeqs(bed.store.pool, stream.taskId as string));
    const finished = events.at(-1);
    expect(finished).toMatchObject({ type: "finished", state: "failed" });
    expect(statusText(finished?.type === "finished" ? finished.update.status : undefined)).toBe(ORPHANED_REASON);
    // B answers the task as it ended, over gRPC too.
    expect((await client.getTask(stream.taskId as string)).status.state).toBe("failed");
  });
});
