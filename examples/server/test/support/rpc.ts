import { decodeSseStream } from "@a2a-partner/a2a-core";
import type { LooseJson } from "@a2a-partner/test-support/loose-json";

let counter = 0;

export interface Frame {
  id: string | undefined;
  event: string;
  result: LooseJson;
}

export function post(url: string, body: unknown, token: string | null, headers: Record<string, string> = {}) {
  return fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...headers,
    },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

export function envelope(method: string, params: unknown, id: string | number = `t${++counter}`) {
  return { jsonrpc: "2.0", id, method, params };
}

export function startParams(text = "Restock aisle 5", messageId?: string, storeId = "store-001") {
  return {
    message: { kind: "message", role: "user", parts: [{ kind: "text", text }], ...(messageId ? { messageId } : {}) },
    metadata: { storeId },
  };
}

export async function rpc(
  url: string,
  token: string,
  method: string,
  params: unknown,
): Promise<{ status: number; body: LooseJson }> {
  const res = await post(url, envelope(method, params), token);
  return { status: res.status, body: await res.json() };
}

/** Reads SSE frames until the stream ends or `stopAfter` says so (then the connection is dropped). */
export async function readFrames(res: Response, stopAfter?: (frame: Frame, all: Frame[]) => boolean): Promise<Frame[]> {
  if (!res.headers.get("content-type")?.startsWith("text/event-stream")) {
    throw new Error(`expected an SSE stream, got ${res.status}: ${await res.text()}`);
  }
  const frames: Frame[] = [];
  if (!res.body) return frames;
  for await (const event of decodeSseStream(res.body)) {
    const frame = { id: event.id, event: event.event, result: JSON.parse(event.data).result };
    frames.push(frame);
    if (stopAfter?.(frame, frames)) break;
  }
  return frames;
}
