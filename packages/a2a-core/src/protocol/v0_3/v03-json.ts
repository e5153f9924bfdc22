import { type Artifact, isTerminalState, type Message, type TaskEventResult, type TaskStatus } from "../schemas/a2a.js";
import type { ListedTask } from "../schemas/list-tasks.js";
import { keptMapping, keptMappingOf } from "./kept-mapping.js";
import { toV03Artifact, toV03Event, toV03Message, toV03State } from "./mapping.js";

/**
 * The v0.3 JSON text of the model's objects, each piece made once and kept on its object (kept-mapping.ts):
 * what the v0.3 streams send and the PostgreSQL store writes.
 */

// The PostgreSQL store writes a running task's whole snapshot with every event it stores, and most of it
// (history, artifacts) keeps its objects from one snapshot to the next: the JSON of each message and
// artifact is made once and kept on it too, and a snapshot's text is joined from those pieces.
const V03_MESSAGE_JSON = Symbol("v0.3 message JSON");
const V03_ARTIFACT_JSON = Symbol("v0.3 artifact JSON");

/**
 * The text `JSON.stringify(toV03Task(task))` makes, with the history from `fromHistory` on (the store
 * keeps a task's first message apart), joined from the JSON kept on each message and artifact.
 */
export function v03TaskJson(task: ListedTask, fromHistory = 0): string {
  let json = `{"kind":"task","id":${JSON.stringify(task.id)},"contextId":${JSON.stringify(task.contextId)},"status":${v03StatusJson(task.status)},"history":[`;
  for (let i = fromHistory; i < task.history.length; i++) {
    json += (i > fromHistory ? "," : "") + v03MessageJson(task.history[i] as Message);
  }
  json += "]";
  if (task.artifacts !== undefined) {
    json += ',"artifacts":[';
    for (let i = 0; i < task.artifacts.length; i++) {
      json += (i > 0 ? "," : "") + keptMapping(task.artifacts[i] as Artifact, V03_ARTIFACT_JSON, stringifyV03Artifact);
    }
    json += "]";
  }
  if (task.metadata !== undefined) json += `,"metadata":${JSON.stringify(task.metadata)}`;
  return `${json}}`;
}

function v03StatusJson(status: TaskStatus): string {
  const head = JSON.stringify({ state: toV03State(status.state), timestamp: status.timestamp });
  return status.message ? `${head.slice(0, -1)},"message":${v03MessageJson(status.message)}}` : head;
}

function v03MessageJson(message: Message): string {
  return keptMapping(message, V03_MESSAGE_JSON, stringifyV03Message);
}

function stringifyV03Message(message: Message): string {
  return JSON.stringify(toV03Message(message));
}

function stringifyV03Artifact(artifact: Artifact): string {
  return JSON.stringify(toV03Artifact(artifact));
}

// Every stream of a task, and the store that logged it, share one result object per event: its v0.3 JSON
// is made once.
const V03_EVENT_JSON = Symbol("v0.3 event JSON");

/** The v0.3 JSON of a logged event's result, made once per result object. */
export function v03EventJson(result: TaskEventResult): string {
  return keptMapping(result, V03_EVENT_JSON, stringifyV03Event);
}

// A status update's status (with its message) and a task event's task are the objects the task's next
// snapshot holds: their JSON is joined from the same kept pieces, so the store's commit does not make it
// again. The text is `JSON.stringify(toV03Event(result))`'s.
function stringifyV03Event(result: TaskEventResult): string {
  if ("task" in result) return v03TaskJson(result.task);
  if (!("statusUpdate" in result)) return JSON.stringify(toV03Event(result));
  const { taskId, contextId, status, metadata } = result.statusUpdate;
  const head = JSON.stringify({ kind: "status-update", taskId, contextId });
  const tail = JSON.stringify({ final: isTerminalState(status.state), metadata });
  return `${head.slice(0, -1)},"status":${v03StatusJson(status)},${tail.slice(1)}`;
}

/** The v0.3 JSON of a result if `v03EventJson` already made it (a store that logged it in v0.3). */
export function madeV03EventJson(result: TaskEventResult): string | undefined {
  return keptMappingOf(result, V03_EVENT_JSON);
}
