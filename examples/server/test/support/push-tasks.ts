import { envelope, post, startParams } from "./rpc.ts";
import { openStream, runCli, type ServerProcess } from "./server-process.ts";

/** The dialect a request speaks, and so the shape its config's receiver gets. */
export type PushDialect = "0.3" | "1.0";

const versionHeader = (version: PushDialect): Record<string, string> =>
  version === "1.0" ? { "A2A-Version": "1.0" } : {};

/** The workspace's signing secret, through `pnpm cli push-secret` (created if it has none). */
export async function pushSecretOf(env: Record<string, string>, workspace: string): Promise<string> {
  const run = await runCli(["push-secret", "--workspace", workspace], env);
  if (run.code !== 0) throw new Error(`push-secret failed (${run.code}): ${run.stderr}`);
  return JSON.parse(run.stdout.trim().split("\n").at(-1) ?? "").secret;
}

/**
 * Starts a task with SendStreamingMessage in `version`'s shapes, with `config` inline when given
 * (v0.3 `configuration.pushNotificationConfig`, v1.0 `configuration.taskPushNotificationConfig`), and
 * leaves the stream after its first frame (the task goes on). Resolves with the task's id.
 */
export async function startPushTask(
  server: Pick<ServerProcess, "a2aUrl">,
  token: string,
  { version, text, config }: { version: PushDialect; text: string; config?: { url: string; token?: string } },
): Promise<string> {
  const messageId = crypto.randomUUID();
  const params =
    version === "0.3"
      ? { ...startParams(text, messageId), ...(config ? { configuration: { pushNotificationConfig: config } } : {}) }
      : {
          message: { messageId, role: "ROLE_USER", parts: [{ text }] },
          metadata: { storeId: "store-001" },
          ...(config ? { configuration: { taskPushNotificationConfig: config } } : {}),
        };
  const stream = await openStream(server.a2aUrl, token, "SendStreamingMessage", params, versionHeader(version));
  const first = await stream.until(() => true);
  stream.close();
  const id = version === "0.3" ? first.result?.id : first.result?.task?.id;
  if (typeof id !== "string") throw new Error(`no task in the first frame: ${JSON.stringify(first.result)}`);
  return id;
}

/** CreateTaskPushNotificationConfig in `version`'s shapes (v0.3 nests the config); throws on an error answer. */
export async function createPushConfig(
  server: Pick<ServerProcess, "a2aUrl">,
  token: string,
  { version, taskId, ...config }: { version: PushDialect; taskId: string; id: string; url: string; token?: string },
): Promise<void> {
  const params = version === "0.3" ? { taskId, pushNotificationConfig: config } : { taskId, ...config };
  const res = await post(
    server.a2aUrl,
    envelope("CreateTaskPushNotificationConfig", params),
    token,
    versionHeader(version),
  );
  const body = await res.json();
  if (body.error) throw new Error(`create failed: ${JSON.stringify(body.error)}`);
}
