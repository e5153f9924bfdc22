import { Webhook } from "standardwebhooks";
import type { PushDelivery } from "../../ports/push-deliveries.js";
import { toV1StreamResult } from "../../protocol/dialect/v1-wire.js";
import { v03EventJson } from "../../protocol/v0_3/v03-json.js";

/** What one attempt sends: the same body and id on every attempt; timestamp and signatures of the moment. */
export interface PushRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

declare const __A2A_CORE_VERSION__: string | undefined;

/** `User-Agent` of every delivery; the version is the package's, set by the build. */
export const PUSH_USER_AGENT = `a2a-partner-push/${typeof __A2A_CORE_VERSION__ === "string" ? __A2A_CORE_VERSION__ : "dev"}`;

/**
 * The body a receiver gets, in the version its config was made in: v0.3, the event's `result` exactly as
 * a v0.3 stream frame carries it (the Task for seq 1, else a `status-update` / `artifact-update`); v1.0,
 * the `StreamResponse` of a v1.0 stream frame.
 */
export function pushPayload(delivery: PushDelivery): string {
  const result = delivery.event.result;
  return delivery.config.version === "1.0" ? JSON.stringify(toV1StreamResult(result)) : v03EventJson(result);
}

/**
 * The request of one attempt, signed by the Standard Webhooks specification with every secret given
 * (`webhook-signature: v1,<a> v1,<b>`, so a receiver that knows either secret verifies it during a
 * rotation). Throws when a secret is not a valid `whsec_…` key.
 */
export function buildPushRequest(
  delivery: PushDelivery,
  webhookId: string,
  secrets: readonly string[],
  now: Date,
  body: string = pushPayload(delivery),
): PushRequest {
  const config = delivery.config;
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "user-agent": PUSH_USER_AGENT,
    "webhook-id": webhookId,
    "webhook-timestamp": String(Math.floor(now.getTime() / 1000)),
    "webhook-signature": secrets.map((secret) => signerOf(secret).sign(webhookId, now, body)).join(" "),
  };
  if (config.token !== undefined) headers["x-a2a-notification-token"] = config.token;
  const auth = config.authentication;
  const scheme = auth?.schemes[0];
  if (scheme !== undefined && auth?.credentials !== undefined) headers.authorization = `${scheme} ${auth.credentials}`;
  return { url: config.url, headers, body };
}

// A secret's key is decoded once, not once per delivery; a workspace has one or two at a time.
const signers = new Map<string, Webhook>();
const MAX_SIGNERS = 1_000;

function signerOf(secret: string): Webhook {
  let signer = signers.get(secret);
  if (!signer) {
    signer = new Webhook(secret);
    if (signers.size >= MAX_SIGNERS) signers.clear();
    signers.set(secret, signer);
  }
  return signer;
}
