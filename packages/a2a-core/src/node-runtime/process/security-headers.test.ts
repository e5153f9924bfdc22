import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { SECURITY_HEADERS, securityHeaders } from "./security-headers.js";

describe("securityHeaders", () => {
  it("sets every security header on the answer, then hands on", async () => {
    const server = createServer((req, res) => securityHeaders(req, res, () => res.end("ok")));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const response = await fetch(`http://127.0.0.1:${port}/`);
      expect(await response.text()).toBe("ok");
      for (const [name, value] of Object.entries(SECURITY_HEADERS)) expect(response.headers.get(name)).toBe(value);
      expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    } finally {
      server.close();
    }
  });
});
