import { createHash } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import type { PushConfig } from "../../ports/push-configs.js";
import type { PushDelivery } from "../../ports/push-deliveries.js";
import type { StoredTaskEvent } from "../../ports/task-records.js";
import { buildPushRequest, PUSH_USER_AGENT, pushPayload } from "./push-request.js";
import { webhookIdOf } from "./webhook-id.js";

const SECRET_A = `whsec_${btoa("secret-a-0123456789abcdef0123456")}`;
const SECRET_B = `whsec_${btoa("secret-b-0123456789abcdef0123456")}`;

const UPDATE: StoredTaskEvent = {
  taskId: "task-1",
  seq: 2,
  event: "update",
  result: {
    statusUpdate: {
      taskId: "task-1",
      contextId: "ctx-1",
      status: { state: "TASK_STATE_WORKING", timestamp: "2026-03-01T12:00:00.000Z" },
    },
  },
  createdAt: "2026-03-01T12:00:00.000Z",
};

/** UPDATE as a receiver of a v0.3 config gets it: the `result` of a v0.3 stream frame. */
const UPDATE_V03 = {
  kind: "status-update",
  taskId: "task-1",
  contextId: "ctx-1",
  status: { state: "working", timestamp: "2026-03-01T12:00:00.000Z" },
  final: false,
};

function delivery(config: Partial<PushConfig> = {}, event: StoredTaskEvent = UPDATE): PushDelivery {
  return {
    id: "d-1",
    workspaceId: "ws-a",
    config: {
      id: "cfg-1",
      taskId: "task-1",
      url: "https://hooks.example.com/a2a?tenant=7",
      version: "0.3",
      createdAt: "2026-03-01T11:59:00.000Z",
      ...config,
    },
    event,
    attempt: 1,
    durableAt: "2026-03-01T12:00:00.000Z",
  };
}

describe("a push request", () => {
  it("is signed per Standard Webhooks with every secret, so either verifies during a rotation", async () => {
    const id = await webhookIdOf("task-1", 2, "cfg-1");
    const now = new Date();
    const request = buildPushRequest(delivery(), id, [SECRET_A, SECRET_B], now);
    expect(request.headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/=]+ v1,[A-Za-z0-9+/=]+$/);
    expect(request.headers["webhook-timestamp"]).toBe(String(Math.floor(now.getTime() / 1000)));
    for (const secret of [SECRET_A, SECRET_B]) {
      expect(new Webhook(secret).verify(request.body, request.headers)).toEqual(UPDATE_V03);
    }
    const other = `whsec_${btoa("another-secret-0123456789abcdef")}`;
    expect(() => new Webhook(other).verify(request.body, request.headers)).toThrow(/No matching signature/);
    expect(() => new Webhook(SECRET_A).verify(`${request.body} `, request.headers)).toThrow(/No matching signature/);
  });

  it("carries the token, the authentication and the user agent", async () => {
    const request = buildPushRequest(
      delivery({ token: "tok-123", authentication: { schemes: ["Bearer", "Basic"], credentials: "c-456" } }),
      "msg_x",
      [SECRET_A],
      new Date(),
    );
    expect(request.url).toBe("https://hooks.example.com/a2a?tenant=7");
    expect(request.headers).toMatchObject({
      "content-type": "application/json",
      "webhook-id": "msg_x",
      "x-a2a-notification-token": "tok-123",
      authorization: "Bearer c-456",
      "user-agent": PUSH_USER_AGENT,
    });
    expect(PUSH_USER_AGENT).toMatch(/^a2a-partner-push\/\S+$/);
  });

  it("has no token or Authorization header when the config has none (or no credentials)", () => {
    const request = buildPushRequest(
      delivery({ authentication: { schemes: ["Bearer"] } }),
      "msg_x",
      [SECRET_A],
      new Date(),
    );
    expect(request.headers).not.toHaveProperty("x-a2a-notification-token");
    expect(request.headers).not.toHaveProperty("authorization");
  });

  it("is the v0.3 result for a config made in v0.3 and the v1.0 StreamResponse for one made in v1.0", () => {
    expect(JSON.parse(pushPayload(delivery()))).toEqual(UPDATE_V03);
    expect(JSON.parse(pushPayload(delivery({ version: "1.0" })))).toEqual({
      statusUpdate: {
        taskId: "task-1",
        contextId: "ctx-1",
        status: { state: "TASK_STATE_WORKING", timestamp: "2026-03-01T12:00:00.000Z" },
      },
    });
  });

  it("refuses a secret that is not a key", () => {
    expect(() => buildPushRequest(delivery(), "msg_x", ["whsec_"], new Date())).toThrow();
  });
});

describe("webhook-id", () => {
  it("is msg_ + base64url(SHA-256(taskId, seq, configId)) + . + seq: the same everywhere, different per event and config", async () => {
    const id = await webhookIdOf("task-1", 2, "cfg-1");
    // Ids never change between versions: a receiver drops duplicates by them across a rolling upgrade.
    expect(id).toBe("msg_CTLGGM9yVVsZMUxE08z0mRlCOwphaoNRrT3wAH-iBrI.2");
    expect(id).toBe(`msg_${createHash("sha256").update("task-1\n2\ncfg-1").digest("base64url")}.2`);
    expect(await webhookIdOf("task-1", 2, "cfg-1")).toBe(id);
    expect(await webhookIdOf("task-1", 3, "cfg-1")).not.toBe(id);
    expect(await webhookIdOf("task-1", 2, "cfg-2")).not.toBe(id);
    // The separator keeps ("a", 12) and ("a1", 2) apart.
    expect(await webhookIdOf("task-1", 21, "cfg")).not.toBe(await webhookIdOf("task-12", 1, "cfg"));
  });

  it("is the same by node:crypto and by Web Crypto (runtimes without Node's built-ins), at every length", async () => {
    for (let length = 0; length <= 140; length++) {
      const taskId = "t".repeat(length);
      const expected = `msg_${createHash("sha256").update(`${taskId}\n7\nc`).digest("base64url")}.7`;
      expect(await webhookIdOf(taskId, 7, "c"), `length ${length}`).toBe(expected);
      expect(await webhookIdOf(taskId, 7, "c", true), `length ${length}, Web Crypto`).toBe(expected);
    }
  });
});
