import { connect, type Socket } from "node:net";
import { firstResponseLine } from "@a2a-partner/test-support/first-response-line";
import { describe, expect, it } from "vitest";
import { serverProcessPerSuite } from "./support/process-suite.ts";
import { createPgliteStore } from "./support/server-process.ts";

// MAX_CONNECTIONS bounds the sockets a server process holds: past it a new connection is closed at once,
// and room comes back as soon as a connection goes.

describe("MAX_CONNECTIONS=2 on a real server process", () => {
  const suite = serverProcessPerSuite(createPgliteStore, { env: { MAX_CONNECTIONS: "2" } });

  function open(): Promise<Socket> {
    const { hostname, port } = new URL(suite.server.url);
    return new Promise((resolve, reject) => {
      const socket = connect(Number(port), hostname, () => resolve(socket));
      socket.once("error", reject);
    });
  }

  /** What a GET /healthz on a fresh connection gets: its status line, or "closed" if the server hung up. */
  async function healthOnNewConnection(): Promise<string> {
    const socket = await open();
    const line = firstResponseLine(socket, (how, text) => (how === "close" && text ? text : "closed"));
    socket.write("GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n");
    return line;
  }

  it("closes a third connection at once, and accepts one again when a connection goes", async () => {
    const held = [await open(), await open()];
    await new Promise((resolve) => setTimeout(resolve, 100)); // both accepted by the server
    expect(await healthOnNewConnection()).toBe("closed");
    held[0]?.destroy();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await healthOnNewConnection()).toBe("HTTP/1.1 200 OK");
    held[1]?.destroy();
  });
});
