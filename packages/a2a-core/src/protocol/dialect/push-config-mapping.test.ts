import { describe, expect, it } from "vitest";
import { refusedField } from "../refused-field.fixture.js";
import {
  fromV1CreatePushParams,
  fromV1DeletePushParams,
  fromV1GetPushParams,
  fromV1ListPushParams,
  fromV1StartConfiguration,
  toV1PushConfig,
} from "./push-config-mapping.js";

describe("push configs between v1.0 and the model", () => {
  it("maps a v1.0 config to the model and back, its one scheme a list of one", () => {
    const v1 = {
      taskId: "t",
      id: "c",
      url: "https://r.example/",
      token: "tok",
      authentication: { scheme: "Bearer", credentials: "cred" },
    };
    const model = fromV1CreatePushParams(v1);
    expect(model).toEqual({
      taskId: "t",
      id: "c",
      url: "https://r.example/",
      token: "tok",
      authentication: { schemes: ["Bearer"], credentials: "cred" },
    });
    expect(toV1PushConfig(model as never)).toEqual(v1);
    // v0.3 alternatives: v1.0 has room for the first only.
    const many = { taskId: "t", id: "c", url: "u", authentication: { schemes: ["A", "B"] } };
    expect(toV1PushConfig(many)).toEqual({ id: "c", taskId: "t", url: "u", authentication: { scheme: "A" } });
  });

  it("reads ProtoJSON's empty strings as not given", () => {
    expect(
      fromV1CreatePushParams({
        taskId: "t",
        id: "",
        url: "https://r.example/",
        token: "",
        authentication: { scheme: "", credentials: "" },
      }),
    ).toEqual({ taskId: "t", url: "https://r.example/" });
    expect(fromV1GetPushParams({ taskId: "t", id: "" })).toEqual({ taskId: "t" });
    expect(fromV1ListPushParams({ taskId: "t", pageSize: 0, pageToken: "" })).toEqual({ taskId: "t" });
    expect(fromV1DeletePushParams({ taskId: "t", id: "c" })).toEqual({ taskId: "t", id: "c" });
  });

  it("names the v1.0 field of what it refuses", () => {
    expect(refusedField(() => fromV1CreatePushParams({ taskId: "t" }))).toBe("params.url");
    expect(refusedField(() => fromV1DeletePushParams({ taskId: "t", id: "" }))).toBe("params.id");
    expect(refusedField(() => fromV1ListPushParams({ taskId: "t", pageToken: "x" }))).toBe("params.pageToken");
    expect(refusedField(() => fromV1StartConfiguration({ taskPushNotificationConfig: { url: 7 } }))).toBe(
      "params.configuration.taskPushNotificationConfig.url",
    );
  });

  it("reads a start's taskPushNotificationConfig and keeps the rest of its configuration", () => {
    expect(
      fromV1StartConfiguration({
        historyLength: 2,
        taskPushNotificationConfig: { taskId: "", url: "https://r.example/" },
      }),
    ).toEqual({ historyLength: 2, taskPushNotificationConfig: { url: "https://r.example/" } });
    expect(fromV1StartConfiguration({ historyLength: 2 })).toEqual({ historyLength: 2 });
    expect(fromV1StartConfiguration("not an object")).toBe("not an object");
  });
});
