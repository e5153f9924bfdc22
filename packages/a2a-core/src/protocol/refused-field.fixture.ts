import { isA2AError } from "./errors.js";

/** For tests: the field the A2A error thrown by `run` names ("accepted" when it throws nothing). */
export function refusedField(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    return isA2AError(error) ? (error.data as { field: string }).field : "not an A2A error";
  }
  return "accepted";
}
