import { z } from "zod";
import { Artifact, Task } from "./a2a.js";
import { TaskV1 } from "./a2a-v1.js";

/** A task as ListTasks shows it: `artifacts` only when the request asked for them (`includeArtifacts`). */
export const ListedTask = Task.extend({ artifacts: z.array(Artifact).optional() });
export type ListedTask = z.infer<typeof ListedTask>;

/** The page fields of a ListTasks result, the same in both dialects. */
export const LIST_PAGE_FIELDS = {
  /** Pass it as `pageToken` for the next page; "" on the last page. */
  nextPageToken: z.string(),
  /** How many tasks this page holds. */
  pageSize: z.number().int().min(0),
  /** How many tasks match the filters, over all pages. */
  totalSize: z.number().int().min(0),
};

/** The result of ListTasks in the v1.0 dialect. */
export const ListTasksResultV1 = z.object({ tasks: z.array(TaskV1), ...LIST_PAGE_FIELDS });
export type ListTasksResultV1 = z.infer<typeof ListTasksResultV1>;
