import { describe, expect, it } from "vitest";
import type { TaskEventResult } from "../protocol/schemas/a2a.js";
import type { StoreContractContext } from "./store-contract-context.js";
import { FAR_FUTURE, must } from "./store-fixtures.js";

/** The metadata of a status update (`fixtures.update` gives it some). */
function metadataOf(result: TaskEventResult): Record<string, unknown> {
  if (!("statusUpdate" in result) || !result.statusUpdate.metadata) throw new Error("no status update metadata");
  return result.statusUpdate.metadata;
}

/** Stores hand out copies: nothing a caller does to a record reaches the store, or the reverse. */
export function defineRecordCopiesCases(current: () => StoreContractContext): void {
  describe("records are copies", () => {
    it("never shares objects with callers, in either direction", async () => {
      const { stores, workspaceA, fixtures } = current();
      const input = fixtures.newTask(workspaceA);
      const created = await stores.tasks.create(input);
      input.task.status.state = "TASK_STATE_FAILED";
      created.task.history.length = 0;
      const first = must(await stores.tasks.get(workspaceA, created.task.id));
      expect(first.task.status.state).toBe("TASK_STATE_WORKING");
      expect(first.task.history).toHaveLength(1);
      first.task.artifacts.push({ artifactId: "x", parts: [] });
      first.lease = { owner: "thief", expiresAt: FAR_FUTURE };
      const second = await stores.tasks.get(workspaceA, created.task.id);
      expect(second).not.toBe(first);
      expect(second?.task.artifacts).toEqual([]);
      expect(second?.lease?.owner).toBe("runner-a");

      const entry = fixtures.update(created.task, 40);
      const appended = await stores.events.append(created.task.id, entry);
      metadataOf(entry.result).percent = -1;
      metadataOf(must(appended).result).percent = -2;
      const [read] = await stores.events.readAfter(created.task.id, 1);
      expect(metadataOf(must(read).result).percent).toBe(40);
    });
  });
}
