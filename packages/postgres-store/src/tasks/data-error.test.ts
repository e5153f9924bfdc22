import { ERROR_CODES, isA2AError } from "@a2a-partner/a2a-core";
import { describe, expect, it } from "vitest";
import { asRequestDataError, isDataError, isRowError } from "./data-error.js";

describe("isDataError", () => {
  it.each([
    ["22P02", true], // invalid text representation (e.g. invalid JSON, a bad uuid)
    ["22P05", true], // untranslatable character (\u0000 in jsonb)
    ["22021", true], // invalid byte sequence
    ["22032", true], // invalid JSON text
    ["22001", true], // value too long
    ["23505", false], // unique violation: a conflict, not bad data
    ["08006", false], // connection failure: an outage
    ["57P01", false], // admin shutdown: an outage
    ["ECONNREFUSED", false],
    ["22", false],
    ["22P021", false],
  ])("SQLSTATE %s → %s", (code, expected) => {
    expect(isDataError(Object.assign(new Error("x"), { code }))).toBe(expected);
  });

  it("is false for anything without a string code", () => {
    for (const value of [undefined, null, "22P02", 22, new Error("22P02"), { code: 22002 }]) {
      expect(isDataError(value)).toBe(false);
    }
  });
});

describe("isRowError", () => {
  it.each([
    ["22P02", true], // a value the column cannot take
    ["23503", true], // foreign key violation: a row refers to nothing
    ["23505", true], // unique violation
    ["08006", false], // connection failure: every retry would fail too
    ["57P01", false], // admin shutdown
    ["ECONNREFUSED", false],
  ])("SQLSTATE %s → %s", (code, expected) => {
    expect(isRowError(Object.assign(new Error("x"), { code }))).toBe(expected);
  });
});

describe("asRequestDataError", () => {
  it("turns a data exception into -32602 without the driver's message, keeping it as the cause", () => {
    const driverError = Object.assign(new Error('invalid input syntax for type json: "\\ud800"'), { code: "22P02" });
    const mapped = asRequestDataError(driverError);
    expect(isA2AError(mapped) && mapped.code).toBe(ERROR_CODES.InvalidParams);
    expect((mapped as Error).message).not.toContain("json");
    expect((mapped as Error).cause).toBe(driverError);
  });

  it("leaves every other error as it is (an outage stays an outage)", () => {
    const outage = Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" });
    expect(asRequestDataError(outage)).toBe(outage);
  });
});
