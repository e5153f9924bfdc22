import { parseArgs } from "node:util";
import { type Database, migrate } from "@a2a-partner/postgres-store";
import { AdminUsageError, createWorkspaceToken, revokeToken, type TokenRequest } from "./admin.ts";
import { loadConfig, type ServerConfig } from "./config.ts";
import { sendControlCommand } from "./control/control-socket.ts";
import { type GenerateProgress, generateMetricsData, parseGenerateArgs } from "./generate/generate-metrics-data.ts";
import { createLogger } from "./logger.ts";
import { seed } from "./seed.ts";
import { controlSocketPath, openConfiguredDatabase, startServer } from "./server.ts";

const USAGE = `Usage: pnpm cli <command>

Commands:
  serve                                   run the reference server (PORT, HOST, PUBLIC_URL, DATABASE_URL, LOG_LEVEL)
  migrate                                 apply database migrations
  seed                                    create the demo workspace, Environment and robots; print new tokens as JSON
  token create --workspace <slug> --kind partner|user [--user <email>]
                                          create a token and print it
  token revoke <token>                    revoke a token: refused from its next request on
  generate --workspace <slug> --events N --days D [--seed S] [--end <ISO-8601>]
                                          bulk-load realistic metrics records (N telemetry events plus
                                          workflow runs and alerts over D days); print a JSON summary
`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  switch (command) {
    case "serve": {
      const running = await startServer(config, logger);
      const shutdown = (signal: string) => {
        logger.info({ signal }, "signal received");
        running.stop().then(
          () => process.exit(0),
          (error) => {
            logger.error({ err: error }, "shutdown failed");
            process.exit(1);
          },
        );
      };
      process.once("SIGTERM", () => shutdown("SIGTERM"));
      process.once("SIGINT", () => shutdown("SIGINT"));
      return -1; // keep running
    }
    case "migrate":
      return adminCommand(config, "migrate", {}, (db) => migrate(db));
    case "seed":
      return adminCommand(config, "seed", {}, async (db) => {
        await migrate(db);
        return seed(db);
      });
    case "token":
      return tokenCommand(config, rest);
    case "generate":
      return generateCommand(config, rest);
    case undefined:
    case "help":
    case "--help":
      process.stdout.write(USAGE);
      return command === undefined ? 2 : 0;
    default:
      process.stderr.write(`Unknown command: ${command}\n\n${USAGE}`);
      return 2;
  }
}

async function tokenCommand(config: ServerConfig, args: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args,
    allowPositionals: true,
    options: { workspace: { type: "string" }, kind: { type: "string" }, user: { type: "string" } },
  });
  if (positionals[0] === "revoke") {
    const token = positionals[1];
    if (!token) {
      process.stderr.write(`token revoke needs the token\n\n${USAGE}`);
      return 2;
    }
    return adminCommand(config, "revoke", { token }, (db) => revokeToken(db, token));
  }
  if (positionals[0] !== "create" || !values.workspace || (values.kind !== "partner" && values.kind !== "user")) {
    process.stderr.write(`token create needs --workspace <slug> and --kind partner|user\n\n${USAGE}`);
    return 2;
  }
  const request: TokenRequest = {
    workspace: values.workspace,
    kind: values.kind,
    ...(values.user ? { user: values.user } : {}),
  };
  return adminCommand(config, "token", request, async (db) => {
    await migrate(db);
    return createWorkspaceToken(db, request);
  });
}

async function generateCommand(config: ServerConfig, args: string[]): Promise<number> {
  let options: ReturnType<typeof parseGenerateArgs>;
  try {
    options = parseGenerateArgs(args);
  } catch (error) {
    if (!(error instanceof AdminUsageError)) throw error;
    process.stderr.write(`${error.message}\n`);
    return 2;
  }
  const progress = (p: GenerateProgress) => {
    if (process.stderr.isTTY) process.stderr.write(`${p.table}: ${p.done}/${p.total}\n`);
  };
  // With the embedded store and a running server, the server does the load (it owns the data directory).
  return adminCommand(config, "generate", { args }, async (db) => {
    await migrate(db);
    return generateMetricsData(db, options, { onProgress: progress });
  });
}

/**
 * Runs an admin command. With the embedded store a running server owns the data directory, so the
 * command is sent to it over the control socket; otherwise the CLI opens the database itself.
 */
async function adminCommand(
  config: ServerConfig,
  command: "migrate" | "seed" | "token" | "revoke" | "generate",
  request: unknown,
  runLocally: (db: Database) => Promise<unknown>,
): Promise<number> {
  if (!config.databaseUrl) {
    const answer = await sendControlCommand(controlSocketPath(config), command, request);
    if (answer) {
      if (answer.status !== 200) {
        process.stderr.write(`${answer.body.error ?? "the command failed"}\n`);
        return answer.status === 400 ? 2 : 1;
      }
      process.stdout.write(
        `${typeof answer.body.result === "string" ? answer.body.result : JSON.stringify(answer.body.result)}\n`,
      );
      return 0;
    }
  }
  return withDatabase(config, async (db) => {
    const result = await runLocally(db);
    process.stdout.write(`${typeof result === "string" ? result : JSON.stringify(result)}\n`);
  });
}

async function withDatabase(config: ServerConfig, work: (db: Database) => Promise<void>): Promise<number> {
  const db = await openConfiguredDatabase(config);
  try {
    await work(db);
    return 0;
  } catch (error) {
    if (error instanceof AdminUsageError) {
      process.stderr.write(`${error.message}\n`);
      return 2;
    }
    throw error;
  } finally {
    await db.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (error) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
