/**
 * The least SSE parsing a load generator needs: split a byte stream into events (`event:` name, `id:` and
 * the joined `data:` lines), skipping comments such as `: keep-alive`. Cheap on purpose — the client shares
 * the machine with the servers it measures — so no `retry:` handling and no size caps.
 */
export interface SseFrame {
  event: string | undefined;
  /** The event's id (our server's: the event's seq). */
  id?: string;
  data: string;
}

export class SseFrameSplitter {
  private buffer = "";
  private readonly decoder = new TextDecoder();

  /** Feeds a chunk; returns the events it completed (comments and empty blocks are dropped). */
  push(chunk: Uint8Array): SseFrame[] {
    this.buffer += this.decoder.decode(chunk, { stream: true }).replace(/\r\n?/g, "\n");
    const frames: SseFrame[] = [];
    let end = this.buffer.indexOf("\n\n");
    while (end !== -1) {
      const block = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      const frame = parseBlock(block);
      if (frame) frames.push(frame);
      end = this.buffer.indexOf("\n\n");
    }
    return frames;
  }
}

function parseBlock(block: string): SseFrame | undefined {
  let event: string | undefined;
  let id: string | undefined;
  const data: string[] = [];
  for (const line of block.split("\n")) {
    if (line.startsWith("data:")) data.push(line.slice(line.startsWith("data: ") ? 6 : 5));
    else if (line.startsWith("event:")) event = line.slice(6).trim();
    else if (line.startsWith("id:")) id = line.slice(3).trim();
  }
  if (data.length === 0 && event === undefined) return undefined;
  return id === undefined ? { event, data: data.join("\n") } : { event, id, data: data.join("\n") };
}
