/**
 * The requests of the wire corpus (wire-corpus.test.ts), in order against one handler: each binding,
 * each dialect, each method, the refusals and the errors. Task ids are the handler's fixed ids, so a
 * case may name a task an earlier case started.
 */
export interface WireCase {
  name: string;
  /** Default POST. */
  verb?: string;
  /** Default `/api/v1/a2a`. */
  path?: string;
  headers?: Record<string, string>;
  /** Default `partner-a`; null sends none. */
  token?: string | null;
  body?: unknown;
}

const V1 = { "A2A-Version": "1.0" };
// The handler's fixed ids: the first start's task is …001 (then its context, …).
const TASK_1 = "00000000-0000-4000-8000-000000000001";

function rpc(name: string, method: string, params: unknown, extra: Partial<WireCase> = {}): WireCase {
  return { name, body: { jsonrpc: "2.0", id: name, method, params }, ...extra };
}

const startV03 = {
  message: { role: "user", messageId: "m-1", parts: [{ kind: "text", text: "restock aisle 5" }] },
  metadata: { storeId: "store-001" },
};
const startV1 = {
  message: { role: "ROLE_USER", messageId: "m-2", parts: [{ text: "restock aisle 6" }] },
  metadata: { storeId: "store-001" },
};

export const WIRE_CASES: readonly WireCase[] = [
  rpc("v03 start", "message/stream", startV03),
  rpc("v03 start again (same messageId)", "message/stream", startV03),
  rpc("v1 start", "SendStreamingMessage", startV1, { headers: V1 }),
  rpc("v1 start by shape", "SendStreamingMessage", { ...startV1, message: { ...startV1.message, messageId: "m-3" } }),
  rpc("v03 get", "tasks/get", { id: TASK_1 }),
  rpc("v03 get by current name, history 1", "GetTask", { id: TASK_1, historyLength: 1 }),
  rpc("v1 get", "GetTask", { id: TASK_1 }, { headers: V1 }),
  rpc("v03 get unknown", "tasks/get", { id: "no-such-task" }),
  rpc("v1 get unknown", "GetTask", { id: "no-such-task" }, { headers: V1 }),
  rpc("v03 get bad params", "tasks/get", { id: 5 }),
  rpc("v1 get bad params", "GetTask", { historyLength: -1 }, { headers: V1 }),
  rpc("v03 list", "tasks/list", { pageSize: 2 }),
  rpc("v1 list completed", "ListTasks", { status: "TASK_STATE_COMPLETED", includeArtifacts: true }, { headers: V1 }),
  rpc("v03 cancel terminal", "tasks/cancel", { id: TASK_1 }),
  rpc("v1 cancel terminal", "CancelTask", { id: TASK_1 }, { headers: V1 }),
  rpc("v03 resubscribe terminal", "tasks/resubscribe", { id: TASK_1 }),
  rpc("v1 subscribe terminal", "SubscribeToTask", { id: TASK_1 }, { headers: V1 }),
  rpc("v03 push set", "tasks/pushNotificationConfig/set", {
    taskId: TASK_1,
    pushNotificationConfig: { url: "https://receiver.example.com/hook", token: "t" },
  }),
  rpc(
    "v1 push create",
    "CreateTaskPushNotificationConfig",
    {
      taskId: TASK_1,
      id: "ops",
      url: "https://receiver.example.com/ops",
      authentication: { scheme: "Bearer", credentials: "c" },
    },
    { headers: V1 },
  ),
  rpc("v03 push get", "tasks/pushNotificationConfig/get", { id: TASK_1, pushNotificationConfigId: "ops" }),
  rpc("v1 push get", "GetTaskPushNotificationConfig", { taskId: TASK_1, id: "ops" }, { headers: V1 }),
  rpc("v03 push list", "tasks/pushNotificationConfig/list", { id: TASK_1 }),
  rpc("v1 push list", "ListTaskPushNotificationConfigs", { taskId: TASK_1 }, { headers: V1 }),
  rpc("v1 push delete", "DeleteTaskPushNotificationConfig", { taskId: TASK_1, id: "ops" }, { headers: V1 }),
  rpc("v03 push delete", "tasks/pushNotificationConfig/delete", { id: TASK_1, pushNotificationConfigId: TASK_1 }),
  rpc("v03 push get unknown task", "tasks/pushNotificationConfig/get", { id: "no-such-task" }),
  rpc("v03 send message", "message/send", startV03),
  rpc("v1 send message", "SendMessage", startV1, { headers: V1 }),
  rpc("v1 extended card", "GetExtendedAgentCard", {}, { headers: V1 }),
  rpc("unknown method", "tasks/frobnicate", {}),
  rpc("v1 unknown version", "GetTask", { id: TASK_1 }, { headers: { "A2A-Version": "9.9" } }),
  rpc("no token", "GetTask", { id: TASK_1 }, { token: null }),
  rpc("bad token", "GetTask", { id: TASK_1 }, { token: "nobody" }),
  rpc("user token", "GetTask", { id: TASK_1 }, { token: "user-a" }),
  { name: "parse error", body: "{not json" },
  { name: "batch", body: [{ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: TASK_1 } }] },
  { name: "no version field", body: { id: 1, method: "GetTask", params: { id: TASK_1 } } },
  { name: "params not an object", body: { jsonrpc: "2.0", id: 1, method: "GetTask", params: [1] } },
  { name: "GET on the JSON-RPC endpoint", verb: "GET" },
  {
    name: "http+json start",
    path: "/api/v1/a2a/message:stream",
    body: { ...startV1, message: { ...startV1.message, messageId: "m-4" } },
  },
  { name: "http+json get", verb: "GET", path: `/api/v1/a2a/tasks/${TASK_1}?historyLength=1` },
  { name: "http+json get unknown", verb: "GET", path: "/api/v1/a2a/tasks/no-such-task" },
  { name: "http+json list", verb: "GET", path: "/api/v1/a2a/tasks?pageSize=2&status=TASK_STATE_COMPLETED" },
  { name: "http+json list bad page size", verb: "GET", path: "/api/v1/a2a/tasks?pageSize=many" },
  { name: "http+json cancel terminal", path: `/api/v1/a2a/tasks/${TASK_1}:cancel` },
  { name: "http+json subscribe terminal", verb: "GET", path: `/api/v1/a2a/tasks/${TASK_1}:subscribe` },
  {
    name: "http+json push create",
    path: `/api/v1/a2a/tasks/${TASK_1}/pushNotificationConfigs`,
    body: { url: "https://receiver.example.com/r", id: "rest" },
  },
  { name: "http+json push get", verb: "GET", path: `/api/v1/a2a/tasks/${TASK_1}/pushNotificationConfigs/rest` },
  { name: "http+json push list", verb: "GET", path: `/api/v1/a2a/tasks/${TASK_1}/pushNotificationConfigs` },
  { name: "http+json push delete", verb: "DELETE", path: `/api/v1/a2a/tasks/${TASK_1}/pushNotificationConfigs/rest` },
  { name: "http+json send message", path: "/api/v1/a2a/message:send", body: startV1 },
  { name: "http+json extended card", verb: "GET", path: "/api/v1/a2a/extendedAgentCard" },
  { name: "http+json wrong verb", verb: "DELETE", path: `/api/v1/a2a/tasks/${TASK_1}` },
  { name: "http+json no route", verb: "GET", path: `/api/v1/a2a/tasks/${TASK_1}/artifacts` },
  { name: "http+json body not an object", path: "/api/v1/a2a/message:stream", body: "[1]" },
  { name: "http+json bad json", path: "/api/v1/a2a/message:stream", body: "{" },
  {
    name: "http+json v0.3 refused",
    verb: "GET",
    path: `/api/v1/a2a/tasks/${TASK_1}`,
    headers: { "A2A-Version": "0.3" },
  },
  { name: "http+json no token", verb: "GET", path: `/api/v1/a2a/tasks/${TASK_1}`, token: null },
];
