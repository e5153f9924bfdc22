import { StreamResponseV1 } from "@a2a-partner/a2a-core/protocol";
import { Webhook } from "standardwebhooks";
import { PushVerificationError } from "../errors.js";
import { streamResultFromV1, Task, TaskUpdateResult } from "../model.js";

/**
 * The request's headers: a Fetch `Headers` (or anything with `get`), or Node's `req.headers`
 * (`IncomingHttpHeaders`, Express's too).
 */
export type PushNotificationHeaders =
  | { get(name: string): string | null }
  | Readonly<Record<string, string | readonly string[] | undefined>>;

/** What `verifyPushNotification` checks: the request as received, and your secret(s). */
export interface VerifyPushNotificationInput {
  /**
   * The request body exactly as received: the signature covers its bytes, so pass the raw body (a string,
   * a Buffer or bytes), never a parsed object (with Express: `express.raw({ type: "application/json" })`).
   */
  body: string | Uint8Array;
  /** The request's headers: `req.headers` on Node and Express, `request.headers` with Fetch. */
  headers: PushNotificationHeaders;
  /**
   * Your workspace's signing secret (`whsec_…`, from `pnpm cli push-secret`), or several: during a
   * rotation pass the new one and the old one, and either verifies.
   */
  secret: string | readonly string[];
  /** How far `webhook-timestamp` may be from now, either way. Default 300 s (Standard Webhooks' value). */
  toleranceSeconds?: number;
  /** The current time in ms (tests). Default `Date.now`. */
  now?: () => number;
}

/** A verified push notification: one event of one task. */
export interface PushNotification {
  /** `webhook-id`: the same for every attempt of the same event to the same config; drop duplicates by it. */
  webhookId: string;
  /** `webhook-timestamp`: when this attempt was signed. */
  timestamp: Date;
  /** The task the event belongs to. */
  taskId: string;
  /**
   * The event's sequence number within the task (its SSE id: 1 is the task itself), read from the end of
   * the signed `webhook-id` (`msg_<hash>.<seq>`). Undefined for an id in another form.
   */
  seq: number | undefined;
  /** The A2A version of the config the event was sent for: the shape `payload` has. */
  version: "0.3" | "1.0";
  /** The body as sent: the v0.3 stream result, or the v1.0 `StreamResponse`. */
  payload: unknown;
  /**
   * The event in the client's types whichever the version: the task (its first event), or a
   * `status-update` / `artifact-update` (a terminal state in `status-update` is the task's end).
   */
  event: Task | TaskUpdateResult;
  /** `X-A2A-Notification-Token`, when the config has a token. */
  notificationToken: string | undefined;
}

const DEFAULT_TOLERANCE_SECONDS = 300;

/**
 * Checks a push notification's Standard Webhooks signature (`webhook-id`, `webhook-timestamp`,
 * `webhook-signature`) against your secret(s) and its timestamp against the tolerance, and returns the
 * event it carries. Throws PushVerificationError (`reason`) for anything that does not verify, and a
 * TypeError for a secret that is not a `whsec_…` one or a body that is not raw.
 *
 * ```ts
 * const notification = verifyPushNotification({ body, headers: req.headers, secret: process.env.A2A_PUSH_SECRET! });
 * ```
 */
export function verifyPushNotification(input: VerifyPushNotificationInput): PushNotification {
  const signers = signersOf(input?.secret);
  const text = bodyText(input.body);
  const header = headerReader(input.headers);
  const webhookId = header("webhook-id");
  const timestampHeader = header("webhook-timestamp");
  const signatures = header("webhook-signature");
  if (!webhookId || !timestampHeader || !signatures) {
    throw new PushVerificationError(
      "headers",
      "Not a signed push notification: webhook-id, webhook-timestamp and webhook-signature are required",
    );
  }
  const timestamp = checkedTimestamp(timestampHeader, input.toleranceSeconds, input.now);
  if (!signers.some((signer) => signedBy(signer, webhookId, timestamp, text, signatures))) {
    throw new PushVerificationError("signature", "No webhook-signature matches the signing secret(s) given");
  }
  const { payload, version, event } = parsePayload(text);
  return {
    webhookId,
    timestamp,
    taskId: event.kind === "task" ? event.id : event.taskId,
    seq: seqOf(webhookId),
    version,
    payload,
    event,
    notificationToken: header("x-a2a-notification-token"),
  };
}

/** The seq a webhook-id of this server ends with (`msg_<hash>.<seq>`). */
function seqOf(webhookId: string): number | undefined {
  const match = /\.(\d{1,15})$/.exec(webhookId);
  return match ? Number(match[1]) : undefined;
}

function signersOf(secret: unknown): Webhook[] {
  const secrets = typeof secret === "string" ? [secret] : Array.isArray(secret) ? secret : [];
  if (secrets.length === 0) throw new TypeError("secret must be a whsec_… signing secret, or a list of them");
  return secrets.map((value: unknown, i) => {
    const what = secrets.length === 1 ? "secret" : `secret[${i}]`;
    if (typeof value !== "string" || !value.startsWith("whsec_")) {
      throw new TypeError(`${what} must be a whsec_… signing secret`);
    }
    try {
      return new Webhook(value);
    } catch {
      throw new TypeError(`${what} is not a whsec_… secret: whsec_ followed by base64`);
    }
  });
}

function bodyText(body: unknown): string {
  if (typeof body === "string") return body;
  if (body instanceof Uint8Array) {
    try {
      return new TextDecoder("utf-8", { fatal: true }).decode(body);
    } catch {
      throw new PushVerificationError("payload", "The body is not UTF-8 text");
    }
  }
  throw new TypeError(
    "body must be the raw request body (a string or bytes) exactly as received: the signature covers those bytes",
  );
}

function headerReader(headers: PushNotificationHeaders): (name: string) => string | undefined {
  if (!headers || typeof headers !== "object") throw new TypeError("headers must be a Headers or req.headers");
  if (typeof headers.get === "function") {
    const get = headers.get as (name: string) => string | null;
    return (name) => get.call(headers, name) ?? undefined;
  }
  const byName = new Map<string, string>();
  for (const [name, value] of Object.entries(headers as Record<string, unknown>)) {
    // Node joins most repeated headers itself; a list left as one is read as Fetch's Headers would join it.
    const text = typeof value === "string" ? value : Array.isArray(value) ? value.join(", ") : undefined;
    if (text !== undefined) byName.set(name.toLowerCase(), text);
  }
  return (name) => byName.get(name);
}

function checkedTimestamp(header: string, toleranceSeconds = DEFAULT_TOLERANCE_SECONDS, now = Date.now): Date {
  if (!/^\d{1,15}$/.test(header.trim())) {
    throw new PushVerificationError("timestamp", "webhook-timestamp is not a number of seconds");
  }
  const seconds = Number(header.trim());
  const skew = Math.floor(now() / 1000) - seconds;
  if (skew > toleranceSeconds) {
    throw new PushVerificationError(
      "timestamp",
      `webhook-timestamp is ${skew} s old (tolerance ${toleranceSeconds} s)`,
    );
  }
  if (-skew > toleranceSeconds) {
    throw new PushVerificationError(
      "timestamp",
      `webhook-timestamp is ${-skew} s in the future (tolerance ${toleranceSeconds} s)`,
    );
  }
  return new Date(seconds * 1000);
}

/** Whether one of the `v1,<base64>` signatures (space-separated) is the one `signer`'s secret makes. */
function signedBy(signer: Webhook, id: string, timestamp: Date, body: string, signatures: string): boolean {
  const expected = signer.sign(id, timestamp, body).slice("v1,".length);
  let found = false;
  for (const entry of signatures.split(" ")) {
    const [version, signature] = entry.split(",", 2);
    // Every entry is compared (no early exit), each in constant time.
    if (version === "v1" && signature !== undefined && constantTimeEqual(signature, expected)) found = true;
  }
  return found;
}

function constantTimeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}

function parsePayload(text: string): Pick<PushNotification, "payload" | "version" | "event"> {
  let payload: unknown;
  try {
    payload = JSON.parse(text);
  } catch {
    throw new PushVerificationError("payload", "The signed body is not JSON");
  }
  // v0.3 results name their kind; a v1.0 StreamResponse is `{ task | statusUpdate | artifactUpdate }`.
  const v03 = typeof payload === "object" && payload !== null && "kind" in payload;
  let result: unknown = payload;
  if (!v03) {
    const parsed = StreamResponseV1.safeParse(payload);
    result = parsed.success ? streamResultFromV1(parsed.data) : undefined;
  }
  const kind = (result as { kind?: unknown } | undefined)?.kind;
  const event = (kind === "task" ? Task : TaskUpdateResult).safeParse(result);
  if (!event.success) {
    throw new PushVerificationError(
      "payload",
      "The signed body is not an A2A task event (v0.3 result or v1.0 StreamResponse)",
    );
  }
  return { payload, version: v03 ? "0.3" : "1.0", event: event.data };
}
