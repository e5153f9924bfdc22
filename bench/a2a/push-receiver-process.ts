/**
 * The push bench's receiver, a process of its own (its CPU is not the server's): the end-to-end tests'
 * receiver (verifies every signature with a2a-client's verifyPushNotification, answers 200). Secret from
 * A2A_PUSH_SECRET. Prints `{"base": …}` once listening; then answers one JSON line per line on stdin:
 *
 *   dump        the notifications since the last dump as [taskId, seq, answered at (epoch ms), webhookId]
 *   keep N      keep the next N verified requests whole (body and headers), for `raw`
 *   raw         the requests kept so far (and forgets them)
 */
import { createInterface } from "node:readline";
import { startPushReceiver } from "../../examples/server/test/support/push-receiver.ts";

const receiver = await startPushReceiver(process.env.A2A_PUSH_SECRET ?? "");
process.stdout.write(`${JSON.stringify({ base: receiver.base })}\n`);
for await (const line of createInterface({ input: process.stdin })) {
  const [command, argument] = line.trim().split(/\s+/);
  if (command === "dump") {
    const rows = receiver.received.map((n) => [n.taskId, n.seq, performance.timeOrigin + n.at, n.webhookId]);
    receiver.received.length = 0;
    process.stdout.write(`${JSON.stringify({ rows, unverified: receiver.unverified.splice(0) })}\n`);
  } else if (command === "keep") {
    receiver.keepRaw = Number(argument);
    process.stdout.write("{}\n");
  } else if (command === "raw") {
    process.stdout.write(`${JSON.stringify({ raw: receiver.raw.splice(0) })}\n`);
  }
}
await receiver.close();
