import { isV1CreatePushShape, isV1ListTasksShape, isV1PushRefShape, isV1StartShape } from "./dialect/body-shape.js";
import {
  fromV1CreatePushParams,
  fromV1DeletePushParams,
  fromV1GetPushParams,
  fromV1ListPushParams,
} from "./dialect/push-config-mapping.js";
import {
  fromV1ListTasksParams,
  fromV1StartParams,
  toV1CreatePushParams,
  toV1ListPushParams,
  toV1ListTasksParams,
  toV1PushRefParams,
  toV1StartParams,
} from "./dialect/v1-params.js";
import { fromV03ListTasksParams, fromV03StartParams } from "./v0_3/params.js";
import {
  fromV03CreatePushParams,
  fromV03DeletePushParams,
  fromV03GetPushParams,
  fromV03ListPushParams,
} from "./v0_3/push-config.js";

/** A route of the HTTP+JSON binding, below the endpoint's base path (a2a.proto's `google.api.http`). */
export interface HttpRoute {
  verb: "GET" | "POST" | "DELETE";
  /** `{name}` segments are fields of the v1.0 params, filled from the path (over the body's). */
  path: string;
  /** Params read from the query, each with the kind its text is read as. */
  query?: Readonly<Record<string, "integer" | "boolean" | "string">>;
  /** Whether the params are the body, a JSON object (else a POST's body is not read). */
  body?: boolean;
}

type Params = Record<string, unknown>;

/** How a method's v1.0 params differ from what its schema checks and from the client's v0.3 input. */
export interface V1Params {
  /** v1.0 → what the schema checks, for the server (throws InvalidParamsError naming the v1.0 field). */
  read?(params: Params): Params;
  /** v0.3 → v1.0, for the client. */
  write(params: Params): Params;
  /** Whether params sent without A2A-Version can only be v1.0 (docs/interop.md). */
  isShape(params: Params): boolean;
}

/** What the wire says of one method, whichever side speaks it. */
export interface MethodWire {
  /** The older slash name it also answers to (v0.3). */
  alias?: string;
  streaming: boolean;
  /** The handler feature it needs: without it the method answers that feature's error, params unread. */
  feature?: "push";
  /** Its HTTP+JSON routes; the first is the one a client uses. */
  http: readonly HttpRoute[];
  v1?: V1Params;
  /** How its v0.3 params become what its schema checks (the model, A2A v1.0), for the server. */
  v03?: { read(params: Params): Params };
}

// Typed as V1Params, not as the functions themselves: the table's type names no mapping function.
const START: V1Params = { read: fromV1StartParams, write: toV1StartParams, isShape: isV1StartShape };
const LIST_TASKS: V1Params = { read: fromV1ListTasksParams, write: toV1ListTasksParams, isShape: isV1ListTasksShape };
const START_V03 = { read: fromV03StartParams };
const LIST_TASKS_V03 = { read: fromV03ListTasksParams };
const push = (
  read: (params: Params) => Params,
  write: (params: Params) => Params,
  isShape: (params: Params) => boolean = isV1PushRefShape,
): V1Params => ({ read, write, isShape });

/**
 * The one table of A2A methods: each method's current (A2A v1.0) name, its older slash alias, whether it
 * streams, the feature it needs, its HTTP+JSON routes and how its v1.0 params map. The server's
 * bindings, the typed client and the reference server's mount all read it; what a method does is its
 * module in `methods/` (a method without one answers UnsupportedOperationError).
 */
export const METHODS = {
  SendStreamingMessage: {
    alias: "message/stream",
    streaming: true,
    http: [{ verb: "POST", path: "/message:stream", body: true }],
    v1: START,
    v03: START_V03,
  },
  // The specification's prose says POST, a2a.proto's annotation GET: both are answered.
  SubscribeToTask: {
    alias: "tasks/resubscribe",
    streaming: true,
    http: [
      { verb: "POST", path: "/tasks/{id}:subscribe" },
      { verb: "GET", path: "/tasks/{id}:subscribe" },
    ],
  },
  GetTask: {
    alias: "tasks/get",
    streaming: false,
    http: [{ verb: "GET", path: "/tasks/{id}", query: { historyLength: "integer" } }],
  },
  CancelTask: { alias: "tasks/cancel", streaming: false, http: [{ verb: "POST", path: "/tasks/{id}:cancel" }] },
  ListTasks: {
    alias: "tasks/list",
    streaming: false,
    http: [
      {
        verb: "GET",
        path: "/tasks",
        query: {
          contextId: "string",
          status: "string",
          pageSize: "integer",
          pageToken: "string",
          historyLength: "integer",
          statusTimestampAfter: "string",
          includeArtifacts: "boolean",
        },
      },
    ],
    v1: LIST_TASKS,
    v03: LIST_TASKS_V03,
  },
  SendMessage: {
    alias: "message/send",
    streaming: false,
    http: [{ verb: "POST", path: "/message:send", body: true }],
    v1: START,
    v03: START_V03,
  },
  GetExtendedAgentCard: {
    alias: "agent/getAuthenticatedExtendedCard",
    streaming: false,
    http: [{ verb: "GET", path: "/extendedAgentCard" }],
  },
  CreateTaskPushNotificationConfig: {
    alias: "tasks/pushNotificationConfig/set",
    streaming: false,
    feature: "push",
    http: [{ verb: "POST", path: "/tasks/{taskId}/pushNotificationConfigs", body: true }],
    v1: push(fromV1CreatePushParams, toV1CreatePushParams, isV1CreatePushShape),
    v03: { read: fromV03CreatePushParams },
  },
  GetTaskPushNotificationConfig: {
    alias: "tasks/pushNotificationConfig/get",
    streaming: false,
    feature: "push",
    http: [{ verb: "GET", path: "/tasks/{taskId}/pushNotificationConfigs/{id}" }],
    v1: push(fromV1GetPushParams, toV1PushRefParams),
    v03: { read: fromV03GetPushParams },
  },
  ListTaskPushNotificationConfigs: {
    alias: "tasks/pushNotificationConfig/list",
    streaming: false,
    feature: "push",
    http: [
      {
        verb: "GET",
        path: "/tasks/{taskId}/pushNotificationConfigs",
        query: { pageSize: "integer", pageToken: "string" },
      },
    ],
    v1: push(fromV1ListPushParams, toV1ListPushParams),
    v03: { read: fromV03ListPushParams },
  },
  DeleteTaskPushNotificationConfig: {
    alias: "tasks/pushNotificationConfig/delete",
    streaming: false,
    feature: "push",
    http: [{ verb: "DELETE", path: "/tasks/{taskId}/pushNotificationConfigs/{id}" }],
    v1: push(fromV1DeletePushParams, toV1PushRefParams),
    v03: { read: fromV03DeletePushParams },
  },
} as const satisfies Record<string, MethodWire>;

export type MethodName = keyof typeof METHODS;
export type MethodAlias = (typeof METHODS)[MethodName] extends infer E
  ? E extends { alias: infer A }
    ? A
    : never
  : never;

/** A method's entry, widened to the table's common shape. */
export function methodWire(name: MethodName): MethodWire {
  return METHODS[name];
}

const byWireName = new Map<string, MethodName>();
for (const [name, entry] of Object.entries(METHODS) as [MethodName, MethodWire][]) {
  byWireName.set(name, name);
  if (entry.alias) byWireName.set(entry.alias, name);
}

/** Every name the endpoint answers to: each method's current name, then its alias. */
export const WIRE_METHOD_NAMES: readonly string[] = [...byWireName.keys()];

/** Resolves a method name as sent on the wire (current name or alias) to its current name. */
export function resolveMethod(wireName: string): MethodName | undefined {
  return byWireName.get(wireName);
}

/** The slash alias of a method, for speaking to servers that predate the current names. */
export function aliasOf(name: MethodName): string | undefined {
  return methodWire(name).alias;
}

/** Whether params sent without A2A-Version can only be v1.0, by the method's params shape. */
export function onlyV1ByShape(method: MethodName, params: Params): boolean {
  return methodWire(method).v1?.isShape(params) ?? false;
}
