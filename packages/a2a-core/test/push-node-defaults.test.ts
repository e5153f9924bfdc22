import { hostname } from "node:os";
import { describe, expect, it } from "vitest";
import { createA2AHandler as createNodeA2AHandler } from "../src/node.js";
import { harnessPerTest, readFrames, ScriptedExecutor, startParams } from "./support/handler-harness.js";
import { receiverPerTest } from "./support/push-receiver.js";
import { failedAttemptError, recordingLogger, SECRETS } from "./support/push-world.js";

const receiver = receiverPerTest();

const harness = harnessPerTest();
const gated = () => new ScriptedExecutor(undefined, undefined, true);
/** Push turned on as an embedder would, naming neither a destination check nor a sender. */
const onlySecrets = { push: { signingSecrets: async () => SECRETS } };

async function startTask(h: ReturnType<typeof harness>): Promise<string> {
  const response = await h.call({ jsonrpc: "2.0", id: 1, method: "SendStreamingMessage", params: startParams() });
  return (await readFrames(response, 1))[0]?.result.id as string;
}

describe("push defaults of the Node entry's createA2AHandler (only signingSecrets given)", () => {
  // This host's own name: it resolves to a loopback or private address (here /etc/hosts: 127.0.0.1), and
  // the runtime-neutral rules, which judge a name as written, let it through.
  const loopbackName = hostname();

  it("refuses at creation a config whose host name resolves to a forbidden address", async () => {
    const h = harness(gated(), onlySecrets, createNodeA2AHandler);
    const taskId = await startTask(h);
    const url = `http://${loopbackName}:${receiver.port}/hook`;
    const refused = await h.rpc("tasks/pushNotificationConfig/set", { taskId, pushNotificationConfig: { url } });
    expect(refused.body.error).toMatchObject({ code: -32602 });

    // The root entry's default judges the name as written: accepted (what docs/embedding.md warns of).
    const neutral = harness(gated(), onlySecrets);
    const neutralTask = await startTask(neutral);
    const accepted = await neutral.rpc("tasks/pushNotificationConfig/set", {
      taskId: neutralTask,
      pushNotificationConfig: { url },
    });
    expect(accepted.body.error).toBeUndefined();
  });

  it("sends through the guarded sender: a config on loopback (put past the check) gets no POST", async () => {
    const { logger, lines } = recordingLogger();
    const h = harness(gated(), { ...onlySecrets, logger }, createNodeA2AHandler);
    const taskId = await startTask(h);
    const config = { id: "cfg-1", taskId, url: receiver.url(), version: "0.3" as const };
    await h.stores.push.configs.put("ws-a", { ...config, createdAt: new Date().toISOString() }, 10);
    await h.executor.release();

    expect(await failedAttemptError(lines)).toContain("127.0.0.1 is a loopback address");
    expect(receiver.received).toEqual([]);
  });

  it("lets through what push.allowedHosts lists, at creation and when sending", async () => {
    const h = harness(
      gated(),
      { push: { ...onlySecrets.push, allowedHosts: ["127.0.0.1", loopbackName] } },
      createNodeA2AHandler,
    );
    const taskId = await startTask(h);
    const set = await h.rpc("tasks/pushNotificationConfig/set", {
      taskId,
      pushNotificationConfig: { url: receiver.url("/allowed") },
    });
    expect(set.body.error).toBeUndefined();
    await h.executor.release();
    const [push] = await receiver.waitFor(1);
    expect(push?.path).toBe("/allowed");
  });

  it("warns an embedder on Node who uses the root entry's unchecked defaults", async () => {
    const { logger, lines } = recordingLogger();
    harness(gated(), { ...onlySecrets, logger });
    expect(lines.filter((line) => line.level === "warn").map((line) => line.msg)).toEqual([
      expect.stringContaining("import createA2AHandler from @a2a-partner/a2a-core/node"),
    ]);
    const quiet = recordingLogger();
    harness(gated(), { ...onlySecrets, logger: quiet.logger }, createNodeA2AHandler);
    expect(quiet.lines.filter((line) => line.level === "warn")).toEqual([]);
  });
});
