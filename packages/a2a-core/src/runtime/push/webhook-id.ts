import { platformSha256 } from "./platform-sha256.js";

/**
 * The Standard Webhooks `webhook-id` of one event for one config: `msg_` + base64url(SHA-256(taskId, seq,
 * configId)) + `.` + seq. Every instance and every attempt derives the same id, so a receiver drops
 * duplicates (a delivery retaken after a lost lease, a retry after an answer that never arrived) by it;
 * the event's seq at its end is covered by the signature (the id is signed), so a receiver can also order
 * a task's events by it without trusting an unsigned header.
 */
export async function webhookIdOf(
  taskId: string,
  seq: number,
  configId: string,
  webCryptoOnly = false,
): Promise<string> {
  const digest = await platformSha256(new TextEncoder().encode(`${taskId}\n${seq}\n${configId}`), webCryptoOnly);
  return `msg_${base64Url(digest)}.${seq}`;
}

function base64Url(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}
