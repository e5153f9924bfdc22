import { randomBytes } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { finished, progress, task, toV1StreamResult } from "../../test/support/fixtures.js";
import { PushVerificationError, type VerifyPushNotificationInput, verifyPushNotification } from "../index.js";

// Every notification here is signed by the `standardwebhooks` package itself, as the server signs them.
const newSecret = () => `whsec_${randomBytes(32).toString("base64")}`;
const SECRET = newSecret();
const WEBHOOK_ID = "msg_2Kx9vQm1.3";

/** The headers a signed delivery carries (Node's lower-case `req.headers`), signed with every secret given. */
function signed(
  body: string,
  secrets: string[] = [SECRET],
  at = new Date(),
  extra: IncomingHttpHeaders = {},
): IncomingHttpHeaders {
  return {
    "content-type": "application/json",
    "webhook-id": WEBHOOK_ID,
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": secrets.map((secret) => new Webhook(secret).sign(WEBHOOK_ID, at, body)).join(" "),
    ...extra,
  };
}

function refusal(input: VerifyPushNotificationInput): PushVerificationError {
  try {
    verifyPushNotification(input);
  } catch (error) {
    if (error instanceof PushVerificationError) return error;
    throw error;
  }
  throw new Error("verified, but should have been refused");
}

describe("verifyPushNotification", () => {
  it("returns a v0.3 event with its task, webhook-id, seq and token at hand", () => {
    const body = JSON.stringify(progress("task-7", 2));
    const headers = signed(body, [SECRET], new Date(), {
      "x-a2a-notification-token": "tok-1",
    });
    const notification = verifyPushNotification({ body, headers, secret: SECRET });
    expect(notification).toMatchObject({
      webhookId: WEBHOOK_ID,
      taskId: "task-7",
      seq: 3,
      version: "0.3",
      notificationToken: "tok-1",
      event: progress("task-7", 2),
      payload: JSON.parse(body),
    });
    expect(Math.abs(notification.timestamp.getTime() - Date.now())).toBeLessThan(2_000);
  });

  it("reads a v1.0 StreamResponse into the same types, from Fetch Headers and from bytes", () => {
    const body = JSON.stringify(toV1StreamResult(task("task-8")));
    const headers = new Headers(signed(body) as Record<string, string>);
    for (const raw of [body, Buffer.from(body), new TextEncoder().encode(body)]) {
      const notification = verifyPushNotification({ body: raw, headers, secret: SECRET });
      expect(notification).toMatchObject({ version: "1.0", taskId: "task-8", seq: 3 });
      expect(notification.event).toEqual(task("task-8"));
    }
    const end = JSON.stringify(toV1StreamResult(finished("task-8", "failed")));
    const last = verifyPushNotification({ body: end, headers: signed(end), secret: SECRET }).event;
    expect(last.kind === "status-update" && last.status.state).toBe("failed");
  });

  it("refuses a body changed after signing", () => {
    const body = JSON.stringify(progress("task-7", 1));
    const tampered = body.replace('"percent":33', '"percent":100');
    expect(tampered).not.toBe(body);
    expect(refusal({ body: tampered, headers: signed(body), secret: SECRET }).reason).toBe("signature");
    // A changed webhook-id (a replay under a new id) breaks the signature too.
    const headers = { ...signed(body), "webhook-id": "msg_other" };
    expect(refusal({ body, headers, secret: SECRET }).reason).toBe("signature");
  });

  it("refuses a notification signed with another secret", () => {
    const body = JSON.stringify(progress("task-7", 1));
    expect(refusal({ body, headers: signed(body, [newSecret()]), secret: SECRET }).reason).toBe("signature");
  });

  it("refuses a timestamp outside the tolerance, old or ahead, and honours a wider one", () => {
    const body = JSON.stringify(progress("task-7", 1));
    const old = signed(body, [SECRET], new Date(Date.now() - 6 * 60_000));
    const error = refusal({ body, headers: old, secret: SECRET });
    expect(error.reason).toBe("timestamp");
    expect(error.message).toMatch(/old/);
    const ahead = signed(body, [SECRET], new Date(Date.now() + 6 * 60_000));
    expect(refusal({ body, headers: ahead, secret: SECRET }).reason).toBe("timestamp");
    expect(verifyPushNotification({ body, headers: old, secret: SECRET, toleranceSeconds: 600 }).taskId).toBe("task-7");
    // The timestamp is signed: moving it into the window breaks the signature.
    const moved = { ...old, "webhook-timestamp": String(Math.floor(Date.now() / 1000)) };
    expect(refusal({ body, headers: moved, secret: SECRET }).reason).toBe("signature");
  });

  it("verifies during a rotation: signed with both secrets, either one verifies, and a list of yours too", () => {
    const previous = newSecret();
    const next = newSecret();
    const body = JSON.stringify(progress("task-7", 1));
    const headers = signed(body, [next, previous]);
    expect(verifyPushNotification({ body, headers, secret: previous }).taskId).toBe("task-7");
    expect(verifyPushNotification({ body, headers, secret: next }).taskId).toBe("task-7");
    // The receiver already has the new secret while the server still signs with the old one alone.
    expect(verifyPushNotification({ body, headers: signed(body, [previous]), secret: [next, previous] }).taskId).toBe(
      "task-7",
    );
    expect(refusal({ body, headers, secret: [newSecret(), newSecret()] }).reason).toBe("signature");
  });

  it("refuses a request without the signature headers, and a signed body that is not a task event", () => {
    const body = JSON.stringify(progress("task-7", 1));
    const { "webhook-signature": _, ...unsigned } = signed(body);
    expect(refusal({ body, headers: unsigned, secret: SECRET }).reason).toBe("headers");
    for (const other of ['{"hello":"world"}', "[]", "not json", JSON.stringify({ kind: "status-update" })]) {
      expect(refusal({ body: other, headers: signed(other), secret: SECRET }).reason, other).toBe("payload");
    }
  });

  it("says what is wrong with a secret or a body it cannot use", () => {
    const body = JSON.stringify(progress("task-7", 1));
    const headers = signed(body);
    expect(() => verifyPushNotification({ body, headers, secret: "hunter2" })).toThrow(/whsec_/);
    expect(() => verifyPushNotification({ body, headers, secret: [] })).toThrow(TypeError);
    const parsed = JSON.parse(body) as unknown as string;
    expect(() => verifyPushNotification({ body: parsed, headers, secret: SECRET })).toThrow(/raw request body/);
  });
});
