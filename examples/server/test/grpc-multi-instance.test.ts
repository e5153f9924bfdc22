// Two server processes on one PostgreSQL database, each serving gRPC (GRPC_PORT): a SubscribeToTask stream
// on A, A SIGKILLed, the same client resubscribes on B with the last sequence number it saw and gets every
// event of the task exactly once across the two streams.
import type { StreamResponse } from "@a2a-js/sdk";
import { type Client, ClientFactory } from "@a2a-js/sdk/client";
import { GrpcTransportFactory } from "@a2a-js/sdk/client/grpc";
import { bearerInterceptor, collect } from "@a2a-partner/test-support/a2a-sdk";
import { freePort } from "@a2a-partner/test-support/local-processes";
import { beforeAll, describe, expect, it } from "vitest";
import { postgresAvailable } from "./support/backends.ts";
import { loggedSeqs } from "./support/event-log.ts";
import { leaseTestBed } from "./support/lease-test-bed.ts";
import { createPostgresStore, type ServerProcess } from "./support/server-process.ts";

const EVENT_SEQ_KEY = "a2a-partner/event-seq";
const payloadOf = (event: StreamResponse | undefined) =>
  event?.payload?.value as { id?: string; metadata?: Record<string, unknown> } | undefined;
const seqOf = (event: StreamResponse | undefined) => payloadOf(event)?.metadata?.[EVENT_SEQ_KEY] as number;

describe.skipIf(!(await postgresAvailable()))("gRPC streams across two server processes", () => {
  const bed = leaseTestBed(createPostgresStore);
  let a: ServerProcess;
  let b: ServerProcess;

  beforeAll(async () => {
    const [portA, portB] = [await freePort(), await freePort()];
    [a, b] = await Promise.all([bed.serve({ GRPC_PORT: String(portA) }), bed.serve({ GRPC_PORT: String(portB) })]);
  });

  /** The official client on one process's gRPC interface only (from that process's card). */
  function grpcClient(server: ServerProcess): Promise<Client> {
    const factory = new ClientFactory({
      transports: [new GrpcTransportFactory()],
      clientConfig: { interceptors: [bearerInterceptor(bed.token)] },
    });
    return factory.createFromUrl(server.url);
  }

  /** A task started on `server` over HTTP (that stream closed once the task is known): its id. */
  async function startedOn(server: ServerProcess, text: string): Promise<string> {
    const started = await bed.start(server, text);
    const taskId = (await started.until((frame) => frame.event === "task")).result.id as string;
    started.close();
    return taskId;
  }

  it("a stream on a SIGKILLed instance resumes on the other with last-event-id: every event once", async () => {
    // The task runs on B (started there); its stream is followed on A over gRPC.
    const taskId = await startedOn(b, "Restock aisle 9");
    const onA = await grpcClient(a);
    const seenOnA: number[] = [];
    const stream = onA.resubscribeTask({ tenant: "", id: taskId }, { serviceParameters: { "last-event-id": "1" } });
    try {
      for await (const event of stream) {
        if (event.payload?.$case !== "task") seenOnA.push(seqOf(event));
        if (seenOnA.length === 2) {
          await a.kill("SIGKILL");
        }
      }
    } catch {
      // A died under the stream.
    }
    expect(seenOnA.length).toBeGreaterThanOrEqual(2);

    const onB = await grpcClient(b);
    const lastSeen = seenOnA.at(-1) as number;
    const resumed = await collect(
      onB.resubscribeTask({ tenant: "", id: taskId }, { serviceParameters: { "last-event-id": String(lastSeen) } }),
    );
    const seenOnB = resumed.filter((event) => event.payload?.$case !== "task").map(seqOf);

    const logged = (await loggedSeqs(bed.store.pool, taskId)).filter((seq) => seq > 1);
    // Every event after the task frame, exactly once across A's stream and B's, in order.
    expect([...seenOnA, ...seenOnB]).toEqual(logged);
    expect(resumed.at(-1)?.payload?.$case).toBe("task");
  });

  // Last: it stops B.
  it("SIGTERM ends an open gRPC stream cleanly and the process exits 0", async () => {
    const taskId = await startedOn(b, "Count inventory in aisle 2");
    const onB = await grpcClient(b);
    const events: StreamResponse[] = [];
    const following = (async () => {
      for await (const event of onB.resubscribeTask({ tenant: "", id: taskId })) events.push(event);
    })();
    await expect.poll(() => events.length, { timeout: 10_000 }).toBeGreaterThan(0);
    const exit = await b.kill("SIGTERM");
    expect(exit.code).toBe(0);
    // The stream ended without an error: a client resubscribes elsewhere with last-event-id.
    await expect(following).resolves.toBeUndefined();
  });
});
