import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  A2AError,
  ERROR_CODES,
  fromJsonRpcError,
  InvalidParamsError,
  isA2AError,
  TaskNotCancelableError,
  TaskNotFoundError,
  toJsonRpcError,
  UnsupportedOperationError,
} from "./errors.js";

describe("errors", () => {
  it("rebuilds the typed class for every code, keeping message and data", () => {
    const wire = TaskNotCancelableError.forTask("t-1", "completed").toJSON();
    const rebuilt = fromJsonRpcError(wire);
    expect(rebuilt).toBeInstanceOf(TaskNotCancelableError);
    expect(rebuilt).toMatchObject({
      code: ERROR_CODES.TaskNotCancelable,
      message: wire.message,
      data: { state: "completed" },
    });
    expect(fromJsonRpcError({ code: -32001, message: "gone" })).toBeInstanceOf(TaskNotFoundError);
    expect(fromJsonRpcError({ code: -32004, message: "no" })).toBeInstanceOf(UnsupportedOperationError);
    const unknown = fromJsonRpcError({ code: -31999, message: "custom" });
    expect(unknown).toBeInstanceOf(A2AError);
    expect(unknown.code).toBe(-31999);
  });

  it("recognises errors by brand, not by identity of the class", () => {
    expect(isA2AError(new TaskNotFoundError())).toBe(true);
    const foreignCopy = Object.assign(new Error("x"), { [Symbol.for("a2a-partner.A2AError")]: true });
    expect(isA2AError(foreignCopy)).toBe(true);
    expect(isA2AError(new Error("plain"))).toBe(false);
    expect(isA2AError(null)).toBe(false);
  });

  it("turns a zod failure into -32602 naming every failing path", () => {
    const parsed = z
      .object({ message: z.object({ role: z.string() }), n: z.number() })
      .safeParse({ message: {}, n: "x" });
    if (parsed.success) throw new Error("expected failure");
    const error = InvalidParamsError.fromZod(parsed.error);
    expect(error.code).toBe(ERROR_CODES.InvalidParams);
    expect((error.data as { issues: { field: string }[] }).issues.map((i) => i.field)).toEqual([
      "params.message.role",
      "params.n",
    ]);
  });

  it("never leaks a non-protocol error's message", () => {
    expect(toJsonRpcError(new Error("password=hunter2"))).toEqual({ code: -32603, message: "Internal error" });
    expect(toJsonRpcError("boom")).toEqual({ code: -32603, message: "Internal error" });
  });
});
