import { describe, expect, it } from "vitest";
import { refusedField } from "../refused-field.fixture.js";
import {
  fromV03CreatePushParams,
  fromV03DeletePushParams,
  fromV03GetPushParams,
  fromV03ListPushParams,
  fromV03StartConfiguration,
  toV03PushConfig,
} from "./push-config.js";

describe("push configs between v0.3 and the model", () => {
  it("flattens a created config and nests it again in the answer, every scheme kept", () => {
    const config = {
      id: "c",
      url: "https://r.example/",
      token: "tok",
      authentication: { schemes: ["Bearer", "Basic"], credentials: "cred" },
    };
    const model = fromV03CreatePushParams({ taskId: "t", pushNotificationConfig: config });
    expect(model).toEqual({ taskId: "t", ...config });
    const stored = {
      ...(model as typeof config & { taskId: string }),
      version: "0.3",
      createdAt: "2026-01-01T00:00:00Z",
    };
    expect(toV03PushConfig(stored)).toEqual({ taskId: "t", pushNotificationConfig: config });
  });

  it("names a config reference's task `taskId` and the config `id`", () => {
    expect(fromV03GetPushParams({ id: "t" })).toEqual({ taskId: "t" });
    expect(fromV03GetPushParams({ id: "t", pushNotificationConfigId: "c" })).toEqual({ taskId: "t", id: "c" });
    expect(fromV03ListPushParams({ id: "t" })).toEqual({ taskId: "t" });
    expect(fromV03DeletePushParams({ id: "t", pushNotificationConfigId: "c" })).toEqual({ taskId: "t", id: "c" });
  });

  it("reads a start's inline config as the model's taskPushNotificationConfig", () => {
    expect(
      fromV03StartConfiguration({ blocking: false, pushNotificationConfig: { url: "https://r.example/" } }),
    ).toEqual({ blocking: false, taskPushNotificationConfig: { url: "https://r.example/" } });
    expect(fromV03StartConfiguration({ pushNotificationConfig: null })).toEqual({});
  });

  it("names the v0.3 field of what it refuses", () => {
    expect(
      refusedField(() => fromV03CreatePushParams({ taskId: "t", pushNotificationConfig: { url: "ftp://x" } })),
    ).toBe("params.pushNotificationConfig.url");
    expect(refusedField(() => fromV03DeletePushParams({ id: "t" }))).toBe("params.pushNotificationConfigId");
    expect(refusedField(() => fromV03StartConfiguration({ pushNotificationConfig: { url: 7 } }))).toBe(
      "params.configuration.pushNotificationConfig.url",
    );
  });
});
