import type { Dialect, StreamRenderer } from "../dialect/dialect.js";
import { methodWire } from "../method-table.js";
import { buildAgentCardV03 } from "./agent-card.js";
import { withV03FieldNames } from "./error-fields.js";
import { toV03Message, toV03Task, toV03TaskForText } from "./mapping.js";
import { toV03PushConfig } from "./push-config.js";
import { v03EventJson } from "./v03-json.js";

const V03_STREAM: StreamRenderer = {
  eventJson(event) {
    event.v03Json ??= v03EventJson(event.result);
    return event.v03Json;
  },
  taskJson: (task) => JSON.stringify(toV03TaskForText(task)),
  messageJson: (message) => JSON.stringify(toV03Message(message)),
};

/** A2A v0.3, the contract's dialect: payloads exactly as docs/contract.md and docs/protocol.md show them. */
export const DIALECT_V03: Dialect = {
  version: "0.3",
  params: (method, params) => methodWire(method).v03?.read(params) ?? params,
  task: (task) => toV03Task(task),
  message: (message) => toV03Message(message),
  list: (result) => ({ ...result, tasks: result.tasks.map((task) => toV03Task(task)) }),
  pushConfig: toV03PushConfig,
  pushConfigList: (configs) => configs.map(toV03PushConfig),
  agentCard: buildAgentCardV03,
  empty: () => null,
  stream: V03_STREAM,
  error: withV03FieldNames,
};
