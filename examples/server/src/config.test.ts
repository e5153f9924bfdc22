import { describe, expect, it } from "vitest";
import { assertServable, ConfigError, isLoopbackHost, loadConfig } from "./config.ts";

describe("isLoopbackHost", () => {
  it.each(["127.0.0.1", "127.8.9.10", "localhost", "LOCALHOST", "::1", "[::1]", "0:0:0:0:0:0:0:1", "::ffff:127.0.0.1"])(
    "%s is loopback",
    (host) => {
      expect(isLoopbackHost(host)).toBe(true);
    },
  );

  it.each([
    "0.0.0.0",
    "::",
    "[::]",
    "10.0.0.5",
    "192.168.1.2",
    "::ffff:10.0.0.1",
    "fe80::1",
    "example.com",
    "127.example.com",
  ])("%s is not", (host) => {
    expect(isLoopbackHost(host)).toBe(false);
  });
});

describe("assertServable", () => {
  it("refuses a non-loopback HOST without PUBLIC_URL, naming both and what the card would say", () => {
    expect(() => assertServable(loadConfig({ HOST: "0.0.0.0", PORT: "9000" }))).toThrow(ConfigError);
    expect(() => assertServable(loadConfig({ HOST: "0.0.0.0", PORT: "9000" }))).toThrow(
      /HOST=0\.0\.0\.0 .* PUBLIC_URL is not set, .* http:\/\/localhost:9000/,
    );
  });

  it("accepts a non-loopback HOST with PUBLIC_URL, and any loopback HOST without it", () => {
    expect(() => assertServable(loadConfig({ HOST: "0.0.0.0", PUBLIC_URL: "https://a2a.example.com" }))).not.toThrow();
    expect(() => assertServable(loadConfig({}))).not.toThrow();
    expect(() => assertServable(loadConfig({ HOST: "::1" }))).not.toThrow();
  });
});

describe("loadConfig", () => {
  it("refuses a PUBLIC_URL that is not an absolute http(s) URL", () => {
    for (const value of ["a2a.example.com", "ftp://x", "/relative"]) {
      expect(() => loadConfig({ PUBLIC_URL: value })).toThrow(/PUBLIC_URL must be an absolute http\(s\) URL/);
    }
    expect(loadConfig({ PUBLIC_URL: "https://a2a.example.com/" }).publicUrl).toBe("https://a2a.example.com");
  });
});
