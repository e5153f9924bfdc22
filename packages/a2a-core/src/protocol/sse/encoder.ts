/** One Server-Sent Events frame as the server writes it. */
export interface SseFrame {
  id?: string;
  event?: string;
  data: string;
}

// Any of the three SSE line terminators. Data is split on them so each piece becomes its own `data:` line.
const LINE_BREAK = /\r\n|\r|\n/;

/**
 * Encodes one frame: `id: …\n`, `event: …\n`, one `data: …` line per line of data, then a blank line.
 * Throws TypeError if id or event contain CR or LF (or id contains NUL). Data containing \r\n, \r or \n
 * is written as several data: lines (so a decoder joins them back with \n).
 */
export function encodeSseFrame(frame: SseFrame): string {
  const { id, event, data } = frame;
  if (typeof data !== "string") throw new TypeError("SSE frame data must be a string");
  let out = "";
  if (id !== undefined) {
    assertFieldValue("id", id);
    // A decoder ignores an id containing NUL, so it would silently not round-trip.
    if (id.includes("\0")) throw new TypeError("SSE id must not contain NUL");
    out += `id: ${id}\n`;
  }
  if (event !== undefined) {
    assertFieldValue("event", event);
    out += `event: ${event}\n`;
  }
  // Always a single space after the colon: a decoder strips exactly one, so values starting with a
  // space keep it.
  for (const line of data.split(LINE_BREAK)) out += `data: ${line}\n`;
  return `${out}\n`;
}

/** A comment line, e.g. `: keep-alive\n\n`; CR/LF in the text are refused (TypeError). */
export function encodeSseComment(text: string): string {
  assertFieldValue("comment", text);
  return `: ${text}\n\n`;
}

/** Convenience: a JSON-RPC frame: data = JSON.stringify(payload) (always one line). */
export function encodeJsonSseFrame(frame: { id?: string | number; event?: string; payload: unknown }): string {
  const { id, event, payload } = frame;
  if (typeof id === "number" && !Number.isFinite(id)) throw new TypeError("SSE id must be a finite number");
  // JSON.stringify escapes CR/LF inside strings, so the result is one line; it returns undefined for
  // undefined, functions and symbols, which have no JSON form.
  const data: string | undefined = JSON.stringify(payload);
  if (data === undefined) throw new TypeError("SSE payload has no JSON representation");
  const out: SseFrame = { data };
  if (id !== undefined) out.id = String(id);
  if (event !== undefined) out.event = event;
  return encodeSseFrame(out);
}

function assertFieldValue(name: string, value: unknown): asserts value is string {
  if (typeof value !== "string") throw new TypeError(`SSE ${name} must be a string`);
  // A line break would end the field early and let the rest be read as another field (injection).
  if (value.includes("\r") || value.includes("\n")) throw new TypeError(`SSE ${name} must not contain CR or LF`);
}
