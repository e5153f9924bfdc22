import type { A2AStreamResponse, SseSink } from "../ports/handler-response.js";
import { SSE_HEADERS } from "../ports/handler-response.js";
import type { StreamRenderer } from "../protocol/dialect/dialect.js";
import type { Message } from "../protocol/schemas/a2a.js";
import { BARE_FRAMES } from "../runtime/hub/live-event.js";
import { pullFrames } from "../runtime/streams/pull-frames.js";

/**
 * A streaming start the agent answered with a message: one frame, then the end. The frame has no
 * `event:` line (SSE calls it a `message` event) and no id: there is no task to resume.
 */
export function replyStream(
  encoding: { requestIdJson: string; render: StreamRenderer },
  message: Message,
): A2AStreamResponse {
  const json = encoding.render.messageJson(message);
  const data =
    encoding.requestIdJson === BARE_FRAMES ? json : `{"jsonrpc":"2.0","id":${encoding.requestIdJson},"result":${json}}`;
  let started = false;
  const start = (sink: SseSink) => {
    if (started) throw new Error("a stream is started once");
    started = true;
    sink.write(`data: ${data}\n\n`);
    sink.end();
    return () => {};
  };
  return { kind: "sse", status: 200, headers: { ...SSE_HEADERS }, start, frames: pullFrames(start) };
}
