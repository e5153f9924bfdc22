import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { readHeaders } from "./header-reader.js";

/** The headers of one real node request, as node hands them to a handler. */
async function nodeHeadersOf(headers: Record<string, string>): Promise<IncomingHttpHeaders> {
  let seen: IncomingHttpHeaders = {};
  const server = createServer((req, res) => {
    seen = req.headers;
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, { headers });
  await new Promise((resolve) => server.close(resolve));
  return seen;
}

describe("readHeaders", () => {
  it("reads node's IncomingHttpHeaders, whatever the name's case; absent is null", async () => {
    const reader = readHeaders(await nodeHeadersOf({ "A2A-Version": "1.0" }));
    expect(reader.get("A2A-Version")).toBe("1.0");
    expect(reader.get("a2a-version")).toBe("1.0");
    expect(reader.get("authorization")).toBeNull();
  });

  it("reads a getter that answers undefined for an absent header and arrays for repeated ones (Express's req.get)", () => {
    const raw: IncomingHttpHeaders = { "a2a-version": "1.0", "set-cookie": ["a=1", "b=2"] };
    // Express's req.get uses `this`: the reader must call it as a method.
    const req = {
      headers: raw,
      get(this: { headers: IncomingHttpHeaders }, name: string) {
        return this.headers[name.toLowerCase()];
      },
    };
    const reader = readHeaders(req);
    expect(reader.get("A2A-Version")).toBe("1.0");
    expect(reader.get("Set-Cookie")).toBe("a=1, b=2");
    expect(reader.get("authorization")).toBeNull();
  });

  it("reads a web Headers as it is", () => {
    expect(readHeaders(new Headers({ "A2A-Version": "1.0" })).get("a2a-version")).toBe("1.0");
  });
});
