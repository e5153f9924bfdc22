import { methodWire } from "../method-table.js";
import { buildAgentCardV1 } from "../schemas/agent-card.js";
import type { Dialect, StreamRenderer } from "./dialect.js";
import { withJsonFieldNames } from "./proto-field-names.js";
import { toV1PushConfig, toV1PushConfigList } from "./push-config-mapping.js";
import { toV1Error } from "./v1-errors.js";
import { toV1StreamResult, toV1Task } from "./v1-wire.js";

const V1_STREAM: StreamRenderer = {
  // The model is v1.0: a logged event's JSON is already its StreamResponse.
  eventJson: (event) => event.resultJson,
  taskJson: (task) => JSON.stringify(toV1StreamResult({ task })),
  messageJson: (message) => JSON.stringify({ message }),
};

/** A2A v1.0 (`A2A-Version: 1.0`): ProtoJSON payloads, `StreamResponse` results, ErrorInfo details. */
export const DIALECT_V1: Dialect = {
  version: "1.0",
  params(method, params) {
    // The v1.0 `tenant` is the caller's workspace here, which the credentials already say.
    const { tenant: _tenant, ...rest } = withJsonFieldNames(params);
    return methodWire(method).v1?.read?.(rest) ?? rest;
  },
  task: (task) => toV1Task(task),
  message: (message) => ({ message }),
  list: (result) => ({ ...result, tasks: result.tasks.map((task) => toV1Task(task)) }),
  pushConfig: toV1PushConfig,
  pushConfigList: toV1PushConfigList,
  agentCard: buildAgentCardV1,
  // google.protobuf.Empty
  empty: () => ({}),
  stream: V1_STREAM,
  error: toV1Error,
};
