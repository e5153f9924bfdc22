import { readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { createA2AHandler, toFetchHandler } from "../src/index.js";
import { testHandlerOptions } from "./support/handler-harness.js";
import { WIRE_CASES, type WireCase } from "./wire-corpus/cases.js";

/**
 * The wire, byte for byte: every case of `wire-corpus/cases.ts` (JSON-RPC in v0.3 and v1.0, HTTP+JSON,
 * errors, streams) against a handler with a fixed clock and ids, its answers compared with the corpus
 * recorded from an earlier release (`wire-corpus/corpus.json`). A refactor of the protocol model must not
 * change one byte a client sees. `UPDATE_WIRE_CORPUS=1` records the corpus anew (only for an intended
 * change of the wire, which then shows in the diff).
 *
 * `wire-corpus/previous-release.json` is the same corpus as the release before A2A v1.0 became the core's
 * model answered it, kept as it was recorded: every answer must still be that one, byte for byte, or, where
 * the v0.3 mapping now writes a message's keys in another order (`kind` first in every message), the same
 * status, headers, event ids and names and the same JSON values.
 */

const CORPUS_URL = new URL("./wire-corpus/corpus.json", import.meta.url);
const PREVIOUS_RELEASE_URL = new URL("./wire-corpus/previous-release.json", import.meta.url);

interface RecordedAnswer {
  name: string;
  status: number;
  headers: Record<string, string>;
  body: string;
}

const RECORDED_HEADERS = [
  "content-type",
  "allow",
  "retry-after",
  "retry-after-ms",
  "www-authenticate",
  "cache-control",
];

async function answersOf(cases: readonly WireCase[]): Promise<RecordedAnswer[]> {
  let id = 0;
  let tick = Date.UTC(2026, 0, 1);
  const handler = createA2AHandler({
    ...testHandlerOptions(),
    basePath: "/api/v1/a2a",
    generateId: () => `00000000-0000-4000-8000-${String(++id).padStart(12, "0")}`,
    now: () => {
      tick += 1000;
      return new Date(tick);
    },
    keepAliveMs: 3_600_000,
    // Push on (its four methods answer), nothing sent, every destination allowed: no DNS in a corpus.
    push: { signingSecrets: async () => [], dispatch: false, checkDestination: async () => undefined },
  });
  const fetch = toFetchHandler(handler);
  const answers: RecordedAnswer[] = [];
  try {
    for (const wire of cases) {
      const headers: Record<string, string> = { ...wire.headers };
      if (wire.token !== null) headers.authorization = `Bearer ${wire.token ?? "partner-a"}`;
      if (wire.body !== undefined && headers["content-type"] === undefined)
        headers["content-type"] = "application/json";
      const response = await fetch(
        new Request(`http://test${wire.path ?? "/api/v1/a2a"}`, {
          method: wire.verb ?? "POST",
          headers,
          ...(wire.body === undefined
            ? {}
            : { body: typeof wire.body === "string" ? wire.body : JSON.stringify(wire.body) }),
        }),
      );
      const recorded: Record<string, string> = {};
      for (const name of RECORDED_HEADERS) {
        const value = response.headers.get(name);
        if (value !== null) recorded[name] = value;
      }
      answers.push({ name: wire.name, status: response.status, headers: recorded, body: await response.text() });
    }
  } finally {
    await handler.close({ graceMs: 0 });
  }
  return answers;
}

describe("the wire corpus", () => {
  it("answers every recorded request exactly as the recorded release did", async () => {
    const answers = await answersOf(WIRE_CASES);
    if (process.env.UPDATE_WIRE_CORPUS === "1") {
      writeFileSync(CORPUS_URL, `${JSON.stringify(answers, null, 2)}\n`);
      return;
    }
    const recorded = JSON.parse(readFileSync(CORPUS_URL, "utf8")) as RecordedAnswer[];
    expect(answers.map((a) => a.name)).toEqual(recorded.map((a) => a.name));
    for (const [index, answer] of answers.entries()) expect(answer, answer.name).toEqual(recorded[index]);
  });

  it("answers as the release before the v1.0 model did: the same bytes, or the same JSON in another key order", async () => {
    const answers = await answersOf(WIRE_CASES);
    const previous = JSON.parse(readFileSync(PREVIOUS_RELEASE_URL, "utf8")) as RecordedAnswer[];
    expect(answers.map((a) => a.name)).toEqual(previous.map((a) => a.name));
    const reordered: string[] = [];
    for (const [index, answer] of answers.entries()) {
      const before = previous[index] as RecordedAnswer;
      expect({ status: answer.status, headers: answer.headers }, answer.name).toEqual({
        status: before.status,
        headers: before.headers,
      });
      if (answer.body === before.body) continue;
      reordered.push(answer.name);
      expect(jsonValuesOf(answer.body), answer.name).toEqual(jsonValuesOf(before.body));
    }
    // The five answers that carry a v0.3 user message sent without `kind` (which the release before
    // wrote after `parts`); every other answer is the same to the byte.
    expect(reordered).toEqual([
      "v03 start",
      "v03 start again (same messageId)",
      "v03 get",
      "v03 resubscribe terminal",
      "v03 send message",
    ]);
  });
});

/** A body as JSON values: a JSON body parsed, or an SSE body as its frames with each `data:` parsed. */
function jsonValuesOf(body: string): unknown {
  if (!body.startsWith("id:") && !body.startsWith("event:") && !body.startsWith("data:")) {
    return body === "" ? body : JSON.parse(body);
  }
  return body
    .split("\n\n")
    .filter((frame) => frame !== "")
    .map((frame) => frame.split("\n").map((line) => (line.startsWith("data: ") ? JSON.parse(line.slice(6)) : line)));
}
