/**
 * SendMessage, blocking, to a terminal state: the `send-message` phase of `pnpm bench:a2a` (run.ts).
 * `concurrency` clients each send a v1.0 `SendMessage` and wait for its answer, again and again; the
 * figures are the calls answered with a completed task per second in the window, their latency and the
 * server's CPU per call. The reference server answers SendMessage with -32004 (its contract), so `ours`
 * and `ours-embedded` are measured on an agent on the same packages with SendMessage on
 * (ours-agent-server.ts, on a store of the same kind, the SDK twin's executor); the SDK's targets on
 * their own server (sdk-server.ts), which serves SendMessage.
 *
 *   pnpm bench:a2a --targets ours,ours-embedded,sdk --stream-targets "" --phases send-message
 *   pnpm bench:a2a:send-message                  # the same (about a minute)
 */
import { median, quantile } from "../metrics/stats.ts";
import type { Pool } from "./load.ts";

/** The bench's own agent speaks the core's default (v1.0 with the header); the SDK v1.x speaks v1.0. */
export const SEND_MESSAGE_PATH = "/api/v1/a2a";
const HEADERS = { "content-type": "application/json", "a2a-version": "1.0", authorization: "Bearer bench" };

export interface SendMessageLoad {
  /** Calls answered with a completed task in the window. */
  completed: number;
  perSecond: number;
  /** Calls answered otherwise (an error, a task not completed) or that failed, in the window. */
  failures: number;
  p50: number;
  p95: number;
}

function sendBody(messageId: string, storeId: string): string {
  return JSON.stringify({
    jsonrpc: "2.0",
    id: messageId,
    method: "SendMessage",
    params: {
      message: { messageId, role: "ROLE_USER", parts: [{ text: "Restock aisle 5" }] },
      metadata: { storeId },
    },
  });
}

async function send(pool: Pool, storeId: string): Promise<string> {
  const { body } = await pool.request({
    method: "POST",
    path: SEND_MESSAGE_PATH,
    headers: HEADERS,
    body: sendBody(`sm-${crypto.randomUUID()}`, storeId),
  });
  return body.text();
}

/** Throws unless a blocking SendMessage answers the completed task (checked in full, once). */
export async function checkSendMessage(pool: Pool, storeId = "store-001"): Promise<void> {
  const answer = await send(pool, storeId);
  const state = (JSON.parse(answer) as { result?: { task?: { status?: { state?: string } } } }).result?.task?.status
    ?.state;
  if (state !== "TASK_STATE_COMPLETED") throw new Error(`SendMessage answered ${answer.slice(0, 500)}`);
}

/** `concurrency` clients, each sending the next SendMessage as soon as the last one is answered. */
export async function blockingSendMessages(
  pool: Pool,
  { concurrency, warmupMs, durationMs, storeId = "store-001" }: SendMessageOptions,
): Promise<SendMessageLoad> {
  const windowStart = performance.now() + warmupMs;
  const windowEnd = windowStart + durationMs;
  const latencies: number[] = [];
  let failures = 0;
  const client = async () => {
    while (performance.now() < windowEnd) {
      const sentAt = performance.now();
      const answer = await send(pool, storeId).catch(() => "");
      const at = performance.now();
      if (at < windowStart || at > windowEnd) continue;
      // Cheap on purpose (no JSON.parse per answer): the first answer was checked in full.
      if (answer.includes('"TASK_STATE_COMPLETED"') && !answer.includes('"error":{')) latencies.push(at - sentAt);
      else failures++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, client));
  return {
    completed: latencies.length,
    perSecond: latencies.length / (durationMs / 1000),
    failures,
    p50: median(latencies),
    p95: quantile(latencies, 0.95),
  };
}

export interface SendMessageOptions {
  concurrency: number;
  warmupMs: number;
  durationMs: number;
  storeId?: string;
}
