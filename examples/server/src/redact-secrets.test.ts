import { describe, expect, it } from "vitest";
import { redactSecrets } from "./redact-secrets.ts";

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
