import { InvalidParamsError } from "../errors.js";
import type { Message } from "../schemas/a2a.js";
import type { JsonPath } from "../schemas/bounds/find-ill-formed-string.js";
import { partContentIssues } from "../schemas/bounds/request-bounds.js";
import { checkedV03Message, fromV03Message, STATE_FROM_V03 } from "./mapping.js";
import { fromV03StartConfiguration } from "./push-config.js";

/**
 * Request params of A2A v0.3 → what the methods check (the model, A2A v1.0), one function per params
 * shape; the method table says which method uses which. A v0.3 message is checked in its own shape first,
 * so a refusal names the field the client sent.
 */

type Params = Record<string, unknown>;

const STATE_NAMES = Object.keys(STATE_FROM_V03).join(", ");

/**
 * A start: its message (its file content bounded as v0.3 counts it: the `file` object, named as sent),
 * and its inline push config as the model's `taskPushNotificationConfig`.
 */
export function fromV03StartParams(params: Params): Params {
  const message = params.message === undefined ? {} : { message: readV03StartMessage(params.message) };
  const configuration =
    params.configuration === undefined ? {} : { configuration: fromV03StartConfiguration(params.configuration) };
  return { ...params, ...message, ...configuration };
}

function readV03StartMessage(value: unknown): Message {
  const message = checkedV03Message(value, "params.message");
  const [issue] = partContentIssues(
    message.parts.map((part, i): [JsonPath, unknown] =>
      part.kind === "file"
        ? [["message", "parts", i, "file"], part.file]
        : [["message", "parts", i, "data"], part.kind === "data" ? part.data : undefined],
    ),
  );
  if (issue) throw InvalidParamsError.forField(["params", ...issue.path].join("."), issue.message);
  return fromV03Message(message);
}

/** A task listing: the v0.3 state spelling as the model's. */
export function fromV03ListTasksParams(params: Params): Params {
  const { status } = params;
  // "" and null mean no filter (the schema's to say).
  if (status === undefined || status === null || status === "") return params;
  const state = typeof status === "string" ? STATE_FROM_V03[status as keyof typeof STATE_FROM_V03] : undefined;
  if (state === undefined) throw InvalidParamsError.forField("params.status", `must be one of ${STATE_NAMES}`);
  return { ...params, status: state };
}
