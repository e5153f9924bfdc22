import { describe, expect, it } from "vitest";
import { onlyV1ByShape } from "./method-table.js";

describe("reading a request without A2A-Version by its shape", () => {
  it("reads v1.0 only where the params can be nothing else", () => {
    const v1 = { message: { role: "ROLE_USER", parts: [{ text: "restock aisle 5" }] } };
    expect(onlyV1ByShape("SendStreamingMessage", v1)).toBe(true);
    expect(onlyV1ByShape("SendMessage", v1)).toBe(true);
    // Parts without kind are v1.0 even when the role is missing (v0.3 needs kind on every part).
    expect(onlyV1ByShape("SendStreamingMessage", { message: { parts: [{ text: "x" }] } })).toBe(true);
    expect(onlyV1ByShape("ListTasks", { status: "TASK_STATE_WORKING" })).toBe(true);
    // Push configs: flat with a url, or addressed by taskId.
    expect(onlyV1ByShape("CreateTaskPushNotificationConfig", { taskId: "t", url: "https://r.example/" })).toBe(true);
    expect(onlyV1ByShape("GetTaskPushNotificationConfig", { taskId: "t", id: "c" })).toBe(true);
    expect(onlyV1ByShape("ListTaskPushNotificationConfigs", { taskId: "t" })).toBe(true);
    expect(onlyV1ByShape("DeleteTaskPushNotificationConfig", { taskId: "t", id: "c" })).toBe(true);
  });

  it("keeps v0.3 for v0.3 shapes, mixtures and anything ambiguous", () => {
    const v03 = { message: { role: "user", parts: [{ kind: "text", text: "x" }] } };
    expect(onlyV1ByShape("SendStreamingMessage", v03)).toBe(false);
    expect(onlyV1ByShape("SendStreamingMessage", { message: { role: "user", parts: [{ text: "x" }] } })).toBe(false);
    expect(onlyV1ByShape("SendStreamingMessage", { message: { role: "ROLE_USER", parts: [{ kind: "text" }] } })).toBe(
      false,
    );
    expect(onlyV1ByShape("SendStreamingMessage", { message: { parts: [] } })).toBe(false);
    expect(onlyV1ByShape("SendStreamingMessage", {})).toBe(false);
    expect(onlyV1ByShape("GetTask", { id: "t" })).toBe(false);
    expect(onlyV1ByShape("ListTasks", { status: "working" })).toBe(false);
    const v03Config = { taskId: "t", pushNotificationConfig: { url: "https://r.example/" } };
    expect(onlyV1ByShape("CreateTaskPushNotificationConfig", v03Config)).toBe(false);
    expect(onlyV1ByShape("CreateTaskPushNotificationConfig", { ...v03Config, url: "x" })).toBe(false);
    expect(onlyV1ByShape("GetTaskPushNotificationConfig", { id: "t", pushNotificationConfigId: "c" })).toBe(false);
    expect(onlyV1ByShape("ListTaskPushNotificationConfigs", { id: "t" })).toBe(false);
    expect(onlyV1ByShape("DeleteTaskPushNotificationConfig", { id: "t", pushNotificationConfigId: "c" })).toBe(false);
  });
});
