import { describe, expect, it } from "vitest";
import { isLoopbackHost, MAX_DURATION_SECONDS, parseDuration, redactSecrets } from "./settings.js";

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

describe("parseDuration", () => {
  it.each([
    ["30d", 30 * 86_400],
    ["12h", 12 * 3600],
    ["90m", 5400],
    ["2w", 14 * 86_400],
    ["45s", 45],
    [" 1d ", 86_400],
  ])("%s is %i seconds", (text, seconds) => {
    expect(parseDuration(text)).toBe(seconds);
  });

  it.each(["", "30", "0d", "1.5h", "1h30m", "-1d", "1y", "d", "3650d1", `${MAX_DURATION_SECONDS + 1}s`])(
    "refuses %j",
    (text) => {
      expect(parseDuration(text)).toBeUndefined();
    },
  );
});

describe("redactSecrets", () => {
  it.each([
    [
      "an unencoded / and @ in the password",
      "postgres://postgres:S3cr/t@x@db:5432/test",
      "postgres://postgres:***@db:5432/test",
    ],
    ["a percent-encoded password", "postgres://postgres:S3cr%2Ft%40x@db/test", "postgres://postgres:***@db/test"],
    ["a : in the password", "postgresql://u:a:b@db/x", "postgresql://u:***@db/x"],
    [
      "a password parameter",
      "postgres://db/x?sslmode=require&password=S3cr/t",
      "postgres://db/x?sslmode=require&password=***",
    ],
    ["a key=value string", "host=db password=S3cr/t user=u", "host=db password=*** user=u"],
    ["no scheme", "u:S3cr/t@db/x", "u:***@db/x"],
  ])("hides %s", (_what, value, expected) => {
    expect(redactSecrets(value)).toBe(expected);
  });

  it("leaves a value without a password as it is", () => {
    for (const value of ["postgres://postgres@127.0.0.1:5432/test", "postgres://db:5432/x", "notaurl"]) {
      expect(redactSecrets(value)).toBe(value);
    }
  });
});
