import { parseArgs } from "node:util";

/** What the command line asks for, validated. */
export type CliCommand =
  | { kind: "help" }
  | {
      kind: "run";
      /** Start this task (plain text)… */
      text?: string;
      /** Unset: the server sends the task to the workspace's default Environment, or refuses it. */
      storeId?: string;
      /** …or follow this existing task. */
      attach?: string;
      lastEventId?: string;
      baseUrl?: string;
      agentCardUrl?: string;
      /** Follow an agent card whose endpoint is on another origin. */
      allowCrossOriginEndpoint?: boolean;
      token: string;
      messageId?: string;
      json: boolean;
      legacyMethods: boolean;
      maxResumeAttempts?: number;
      timeoutMs?: number;
    };

export type ParsedArgs = { ok: true; command: CliCommand } | { ok: false; message: string };

export const USAGE = `Usage:
  a2a-task <task text> [--store <storeId>] [options] start a task and follow it to the end
  a2a-task --attach <taskId> [options]               follow a task that is already running

Options:
  -s, --store <id>           Environment (store) that runs the task
                             (default: the workspace's default Environment, if it names one)
  -u, --url <url>            server base URL                      (env A2A_URL)
      --agent-card <url>     discover the endpoint from this agent card instead of --url
      --allow-cross-origin-endpoint
                             follow a card whose endpoint is on another origin (the token goes there)
  -t, --token <token>        partner API token                    (env A2A_TOKEN)
  -m, --message-id <id>      idempotency key: rerun with the same id to reattach to the same task
  -a, --attach <taskId>      follow an existing task
      --last-event-id <n>    with --attach: skip events up to this id
      --json                 print one JSON line per event on stdout
      --legacy-methods       speak the slash method names (message/stream, tasks/resubscribe, ...)
      --max-resume <n>       reattach attempts after a dropped stream (default 5)
      --timeout <seconds>    time allowed for each request's answer (default 60)
  -h, --help                 show this help

Exit codes: 0 completed, 1 failed/canceled/rejected, 2 usage error, 3 connection or auth error,
130 interrupted (the task goes on; reattach with --attach).`;

const OPTIONS = {
  store: { type: "string", short: "s" },
  url: { type: "string", short: "u" },
  "agent-card": { type: "string" },
  "allow-cross-origin-endpoint": { type: "boolean" },
  token: { type: "string", short: "t" },
  "message-id": { type: "string", short: "m" },
  attach: { type: "string", short: "a" },
  "last-event-id": { type: "string" },
  json: { type: "boolean" },
  "legacy-methods": { type: "boolean" },
  "max-resume": { type: "string" },
  timeout: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

/** argv (without node and the script) and the environment → a command, or the reason it is not one. */
export function parseCliArgs(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): ParsedArgs {
  let parsed: ReturnType<typeof parseStrict>;
  try {
    parsed = parseStrict(argv);
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : "invalid arguments" };
  }
  const { values, positionals } = parsed;
  if (values.help) return { ok: true, command: { kind: "help" } };

  const text = positionals.join(" ").trim();
  const attach = values.attach?.trim();
  if (attach !== undefined && attach === "") return fail("--attach needs a task id");
  if (attach && text) return fail("give either a task text or --attach <taskId>, not both");
  if (!attach && !text) return fail('missing the task text, e.g. a2a-task "Restock aisle 5" --store store-001');
  if (values.store !== undefined && !values.store.trim()) return fail("--store needs an Environment's storeId");
  if (values.store !== undefined && attach) return fail("--store goes with a task text, not with --attach");
  if (values["last-event-id"] !== undefined && !attach) return fail("--last-event-id only goes with --attach");
  if (values["last-event-id"] !== undefined && !/^\d{1,15}$/.test(values["last-event-id"])) {
    return fail("--last-event-id must be a non-negative integer");
  }

  const baseUrl = values.url ?? nonEmpty(env.A2A_URL);
  const agentCardUrl = values["agent-card"];
  if (!baseUrl && !agentCardUrl) return fail("missing the server: --url <url> or A2A_URL");
  for (const [name, url] of [
    ["--url", baseUrl],
    ["--agent-card", agentCardUrl],
  ] as const) {
    if (url !== undefined && !isHttpUrl(url)) return fail(`${name} must be an http(s) URL`);
  }
  const token = values.token ?? nonEmpty(env.A2A_TOKEN);
  if (!token) return fail("missing the partner token: --token <token> or A2A_TOKEN");

  let maxResumeAttempts: number | undefined;
  if (values["max-resume"] !== undefined) {
    if (!/^\d{1,4}$/.test(values["max-resume"])) return fail("--max-resume must be a non-negative integer");
    maxResumeAttempts = Number(values["max-resume"]);
  }
  let timeoutMs: number | undefined;
  if (values.timeout !== undefined) {
    const seconds = Number(values.timeout);
    if (!(seconds > 0) || !Number.isFinite(seconds)) return fail("--timeout must be a positive number of seconds");
    timeoutMs = Math.round(seconds * 1000);
  }

  return {
    ok: true,
    command: {
      kind: "run",
      ...(attach ? { attach } : { text, ...(values.store ? { storeId: values.store.trim() } : {}) }),
      ...(values["last-event-id"] !== undefined ? { lastEventId: values["last-event-id"] } : {}),
      ...(baseUrl ? { baseUrl } : {}),
      ...(agentCardUrl ? { agentCardUrl } : {}),
      ...(values["allow-cross-origin-endpoint"] ? { allowCrossOriginEndpoint: true } : {}),
      token,
      ...(values["message-id"] ? { messageId: values["message-id"] } : {}),
      json: values.json ?? false,
      legacyMethods: values["legacy-methods"] ?? false,
      ...(maxResumeAttempts !== undefined ? { maxResumeAttempts } : {}),
      ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    },
  };
}

function parseStrict(argv: readonly string[]) {
  return parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true });
}

function fail(message: string): ParsedArgs {
  return { ok: false, message };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value?.trim() ? value.trim() : undefined;
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}
