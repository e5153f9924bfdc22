import { z } from "zod";

// Field groups the schemas of both A2A dialects share, spelled once. They are spread into
// `z.object({ … })` where they stand, so every schema keeps its own key order.

/** Free-form metadata (a ProtoJSON `Struct` in v1.0): string keys, any JSON values. */
export const Metadata = z.record(z.string(), z.unknown());

/** What every task update event names: its task and that task's context. */
export const TASK_UPDATE_FIELDS = { taskId: z.string(), contextId: z.string() };

/** Whether an artifact update adds to the artifact, and whether it is the artifact's last piece. */
export const ARTIFACT_CHUNK_FIELDS = { append: z.boolean().optional(), lastChunk: z.boolean().optional() };

/** An artifact's fields in either dialect, with that dialect's part schema. */
export function artifactFields<P extends z.ZodType>(part: P) {
  return {
    artifactId: z.string(),
    name: z.string().optional(),
    description: z.string().optional(),
    parts: z.array(part),
    metadata: Metadata.optional(),
  };
}
