// Errors a group commit tells apart: one to run again, one its item caused (see `commitBatch`).

/** Times a batch chosen as a deadlock victim is run again before its items fail. */
export const DEADLOCK_ATTEMPTS = 3;

/** SQLSTATE 40P01 (deadlock detected) or 40001 (serialization failure): nothing was written, try again. */
export function isDeadlock(error: unknown): boolean {
  const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
  return code === "40P01" || code === "40001";
}

/** An item whose values have no JSON form (a BigInt, a cycle): its caller's mistake, not the batch's. */
export class UnserializableItemError extends Error {
  constructor(cause: unknown) {
    super("a value of this write has no JSON form", { cause });
    this.name = "UnserializableItemError";
  }
}
