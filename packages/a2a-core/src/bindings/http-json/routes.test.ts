import { describe, expect, it } from "vitest";
import { isEndpointPath, matchHttpJsonRoute } from "./routes.js";

const BASE = "/api/v1/a2a";
const TASK = "2bf94d04-d55c-44ec-a0c8-010d0019d98f";

describe("HTTP+JSON routes, matched exactly below the base path", () => {
  it("finds each route of the method table, its path fields decoded and its query kept", () => {
    const get = matchHttpJsonRoute("GET", `${BASE}/tasks/${TASK}?historyLength=2`, BASE);
    expect(get).toMatchObject({ kind: "route", method: "GetTask", pathParams: { id: TASK } });
    expect(get?.kind === "route" && get.query.get("historyLength")).toBe("2");
    expect(matchHttpJsonRoute("POST", `${BASE}/tasks/${TASK}:cancel`, BASE)).toMatchObject({ method: "CancelTask" });
    expect(matchHttpJsonRoute("GET", `${BASE}/tasks/${TASK}:subscribe`, BASE)).toMatchObject({
      method: "SubscribeToTask",
    });
    expect(matchHttpJsonRoute("POST", `${BASE}/message:stream`, BASE)).toMatchObject({
      method: "SendStreamingMessage",
    });
    expect(matchHttpJsonRoute("GET", `${BASE}/tasks`, BASE)).toMatchObject({ method: "ListTasks" });
    // An id may hold an encoded slash: ids are opaque.
    expect(matchHttpJsonRoute("DELETE", `${BASE}/tasks/${TASK}/pushNotificationConfigs/ops%2F1`, BASE)).toMatchObject({
      method: "DeleteTaskPushNotificationConfig",
      pathParams: { taskId: TASK, id: "ops/1" },
    });
  });

  it("leaves the endpoint's own path to JSON-RPC", () => {
    expect(matchHttpJsonRoute("POST", BASE, BASE)).toBeUndefined();
    expect(matchHttpJsonRoute("POST", `${BASE}/?A2A-Version=1.0`, BASE)).toBeUndefined();
    expect(matchHttpJsonRoute("POST", "http://host/api/v1/a2a", BASE)).toBeUndefined();
  });

  it("never matches by the end of the path, by another case, or through dot segments", () => {
    const walks = [
      `/API/V1/A2A/tasks/${TASK}`,
      `${BASE}/tasks/x/y/z/tasks/${TASK}`,
      `/elsewhere${BASE}/tasks/${TASK}`,
      `${BASE}/Tasks/${TASK}`,
    ];
    for (const url of walks) expect(matchHttpJsonRoute("GET", url, BASE), url).toMatchObject({ kind: "no-route" });
    const dotted = [
      `${BASE}/tasks/a/../../tasks/${TASK}`,
      `${BASE}/message:stream/../tasks/${TASK}`,
      `${BASE}/tasks/%2e%2e/tasks/${TASK}`,
      `${BASE}/tasks/x%2F..%2F${TASK}`,
      `${BASE}/tasks/.`,
      `${BASE}/tasks/a\\..\\${TASK}`,
    ];
    for (const url of dotted) expect(matchHttpJsonRoute("GET", url, BASE), url).toMatchObject({ kind: "bad-path" });
  });

  it("answers a known path asked with another verb with the verbs it takes", () => {
    expect(matchHttpJsonRoute("DELETE", `${BASE}/tasks/${TASK}`, BASE)).toEqual({ kind: "wrong-verb", allow: "GET" });
    expect(matchHttpJsonRoute("PUT", `${BASE}/tasks/${TASK}/pushNotificationConfigs`, BASE)).toEqual({
      kind: "wrong-verb",
      allow: "POST, GET",
    });
  });

  it("without a base path, takes the path as relative to the mount and says so when a route is deeper down", () => {
    expect(matchHttpJsonRoute("GET", `/tasks/${TASK}`)).toMatchObject({ method: "GetTask" });
    expect(matchHttpJsonRoute("POST", "/")).toBeUndefined();
    expect(matchHttpJsonRoute("POST", "http://host/anything")).toBeUndefined();
    expect(matchHttpJsonRoute("GET", `${BASE}/tasks/${TASK}`)).toEqual({
      kind: "no-route",
      path: `${BASE}/tasks/${TASK}`,
      basePathUnset: true,
    });
  });
});

describe("which requests are the endpoint's", () => {
  it("is the base path and the binding's resources below it, nothing else", () => {
    expect(isEndpointPath(BASE, BASE)).toBe(true);
    expect(isEndpointPath(`${BASE}?A2A-Version=1.0`, BASE)).toBe(true);
    expect(isEndpointPath(`${BASE}/tasks/${TASK}`, BASE)).toBe(true);
    expect(isEndpointPath(`${BASE}/message:send`, BASE)).toBe(true);
    expect(isEndpointPath(`${BASE}/extendedAgentCard`, BASE)).toBe(true);
    expect(isEndpointPath(`${BASE}/other`, BASE)).toBe(false);
    expect(isEndpointPath(`${BASE}x/tasks`, BASE)).toBe(false);
    expect(isEndpointPath("/api/v1/metrics/events", BASE)).toBe(false);
    expect(isEndpointPath("/API/V1/A2A", BASE)).toBe(false);
  });

  it("at the root: the root and the resources, not the rest of the site", () => {
    expect(isEndpointPath("/", "/")).toBe(true);
    expect(isEndpointPath("/message:send", "/")).toBe(true);
    expect(isEndpointPath(`/tasks/${TASK}`, "/")).toBe(true);
    expect(isEndpointPath("/healthz", "/")).toBe(false);
    expect(isEndpointPath("/.well-known/agent-card.json", "/")).toBe(false);
  });
});
