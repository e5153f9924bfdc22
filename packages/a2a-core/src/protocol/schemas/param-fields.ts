import { z } from "zod";
import { A2A_LIMITS } from "../limits.js";
import type { BoundIssue } from "./bounds/request-bounds.js";

// Field schemas and checks the params of every method share, in either dialect.

const L = A2A_LIMITS;

/** An id a partner sends (messageId, contextId, taskId, storeId, a task id): stored and echoed, so bounded. */
export const Id = z.string().min(1).max(L.idLength, `must be at most ${L.idLength} characters`);

export const RequestMetadata = z.record(z.string(), z.unknown());

/** Text PostgreSQL stores never holds U+0000: refused at the edge, naming the field (for `.refine`). */
export const NO_NUL = [(value: string) => !value.includes("\u0000"), "must not contain U+0000 (NUL)"] as const;

/** ProtoJSON writes an unset string as "": both mean "not given". */
export const absentIfEmpty = <T extends z.ZodType>(schema: T) =>
  z.preprocess((value) => (value === "" || value === null ? undefined : value), schema.optional());

/** Reports the checks that look at the request as a whole, after zod's own (which come first in `data`). */
export function checkedBy(...checks: Array<(params: unknown) => BoundIssue[]>) {
  return (params: unknown, ctx: z.RefinementCtx) => {
    for (const check of checks) {
      for (const issue of check(params)) ctx.addIssue({ code: "custom", path: issue.path, message: issue.message });
    }
  };
}
