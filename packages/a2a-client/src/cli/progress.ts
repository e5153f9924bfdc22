import type { Message } from "../model.js";
import type { TaskStreamEvent } from "../stream/events.js";

/** What the progress display shows for one event. */
export interface ProgressInfo {
  /** 0–100, when the server reports it (`metadata.percent`). */
  percent?: number;
  /** e.g. "robot-2 · step 3/6" */
  detail?: string;
  /** The status message, e.g. "robot-2: picking items". */
  text?: string;
}

/**
 * Reads the robots' progress out of an event. The reference fleet puts `{ robot, robotId, node, step,
 * steps, percent }` into a status update's metadata and a human line into its message; every field is
 * optional here, so another server's updates still show what they have.
 */
export function progressOf(event: TaskStreamEvent): ProgressInfo {
  switch (event.type) {
    case "task":
      return { percent: 0, text: `task ${event.task.id} ${event.task.status.state}` };
    // An agent's message reply instead of a task (not the reference server's): its text, and done.
    case "message":
      return { percent: 100, text: textOf(event.message) ?? "message" };
    case "finished": {
      const info: ProgressInfo = { text: textOf(event.update.status.message) ?? event.state };
      if (event.state === "completed") info.percent = 100;
      return info;
    }
    case "update": {
      const update = event.update;
      if (update.kind === "artifact-update") {
        return { text: `artifact: ${update.artifact.name ?? update.artifact.artifactId}` };
      }
      const meta = update.metadata ?? {};
      const info: ProgressInfo = {};
      const percent = meta.percent;
      if (typeof percent === "number" && Number.isFinite(percent)) info.percent = Math.min(100, Math.max(0, percent));
      const robot = stringOf(meta.robot) ?? stringOf(meta.robotId);
      const step = numberOf(meta.step);
      const steps = numberOf(meta.steps);
      const parts = [
        robot,
        step !== undefined ? (steps !== undefined ? `step ${step}/${steps}` : `step ${step}`) : undefined,
      ];
      const detail = parts.filter(Boolean).join(" · ");
      if (detail) info.detail = detail;
      info.text = textOf(update.status.message) ?? update.status.state;
      return info;
    }
  }
}

/** `[########------------]` for a percentage. */
export function progressBar(percent: number, width = 20): string {
  const filled = Math.round((Math.min(100, Math.max(0, percent)) / 100) * width);
  return `[${"#".repeat(filled)}${"-".repeat(width - filled)}]`;
}

/** One line of progress: `[####----] 40%  robot-2 · step 2/5  robot-2: picking items`. */
export function formatProgressLine(info: ProgressInfo, percent: number | undefined): string {
  const head = percent === undefined ? "" : `${progressBar(percent)} ${String(Math.round(percent)).padStart(3)}%  `;
  const tail = [info.detail, info.text].filter(Boolean).join("  ");
  return `${head}${tail}`;
}

export function textOf(message: Message | undefined): string | undefined {
  if (!message) return undefined;
  const text = sanitize(message.parts.map((part) => (part.kind === "text" ? part.text : "")).join("")).trim();
  return text ? text.slice(0, 200) : undefined;
}

/** Server text goes to a terminal: control characters (escape sequences, CR, LF) become spaces. */
export function sanitize(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, " ");
}

function stringOf(value: unknown): string | undefined {
  return typeof value === "string" && value.length > 0 ? sanitize(value.slice(0, 80)) : undefined;
}

function numberOf(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}
