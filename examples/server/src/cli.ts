import { isDataDirectoryLockedError } from "@a2a-partner/postgres-store";
import { AdminUsageError } from "./admin.ts";
import { printLine, runAdminCommand } from "./cli/admin-command.ts";
import { ENVIRONMENT_USAGE, environmentCommand } from "./cli/environment-command.ts";
import { MEMBER_USAGE, memberCommand } from "./cli/member-command.ts";
import { TOKEN_USAGE, tokenCommand } from "./cli/token-command.ts";
import { WORKSPACE_USAGE, workspaceCommand } from "./cli/workspace-command.ts";
import { ConfigError, loadConfig, type ServerConfig } from "./config.ts";
import { EXIT_CODES } from "./exit-codes.ts";
import { type GenerateProgress, generateMetricsData, parseGenerateArgs } from "./generate/generate-metrics-data.ts";
import { createLogger } from "./logger.ts";
import { migrateReferenceSchema } from "./migrations.ts";
import { seed } from "./seed.ts";
import { startServer } from "./server.ts";
import { startTelemetry } from "./telemetry/start-telemetry.ts";

const USAGE = `Usage: pnpm cli <command>

Commands:
  serve                                   run the reference server (PORT, HOST, PUBLIC_URL, DATABASE_URL, LOG_LEVEL)
  migrate                                 apply database migrations
  seed                                    create the demo workspace, Environment and robots; print new tokens as JSON
${TOKEN_USAGE}${WORKSPACE_USAGE}${ENVIRONMENT_USAGE}${MEMBER_USAGE}  generate --workspace <slug> --events N --days D [--seed S] [--end <ISO-8601>]
                                          bulk-load realistic metrics records (N telemetry events plus
                                          workflow runs and alerts over D days); print a JSON summary

Exit codes: 0 done, 1 failed, 2 usage error, ${EXIT_CODES.dataDirectoryInUse} the data directory is in use by another process,
${EXIT_CODES.config} configuration refused (see the message).
`;

/** Commands that take no arguments: anything after them is a mistake, not something to ignore. */
const WITHOUT_ARGUMENTS = new Set(["serve", "migrate", "seed"]);

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  // Help needs no configuration, and never runs the command it is asked about (`seed --help` used to seed).
  const helpFlags = ["--help", "-h"];
  if (
    command === undefined ||
    command === "help" ||
    helpFlags.includes(command) ||
    rest.some((arg) => helpFlags.includes(arg))
  ) {
    process.stdout.write(USAGE);
    return command === undefined ? EXIT_CODES.usage : EXIT_CODES.ok;
  }
  if (WITHOUT_ARGUMENTS.has(command) && rest.length > 0) {
    process.stderr.write(`${command} takes no arguments, got: ${rest.join(" ")}\n\n${USAGE}`);
    return EXIT_CODES.usage;
  }
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  switch (command) {
    case "serve": {
      // First: the cores report through the global OpenTelemetry API the SDK registers.
      const telemetry = await startTelemetry(config, logger);
      const running = await startServer(config, logger).catch(async (error: unknown) => {
        await telemetry?.stop();
        throw error;
      });
      let stopping = false;
      const shutdown = (signal: string) => {
        // A repeated signal (a supervisor's, or the terminal's Ctrl-C reaching both pnpm and node) does not
        // cut the graceful shutdown short: running tasks still get their grace. SIGKILL does.
        if (stopping) {
          logger.info({ signal }, "signal received again: already shutting down");
          return;
        }
        stopping = true;
        logger.info({ signal }, "signal received");
        running
          .stop()
          .then(() => telemetry?.stop())
          .then(
            () => process.exit(EXIT_CODES.ok),
            (error) => {
              logger.error({ err: error }, "shutdown failed");
              process.exit(EXIT_CODES.failure);
            },
          );
      };
      process.on("SIGTERM", () => shutdown("SIGTERM"));
      process.on("SIGINT", () => shutdown("SIGINT"));
      return -1; // keep running
    }
    case "migrate":
      return runAdminCommand(config, {
        name: "migrate",
        request: {},
        run: (db) => migrateReferenceSchema(db),
        print: printLine,
      });
    case "seed":
      return runAdminCommand(config, {
        name: "seed",
        request: {},
        run: async (db) => {
          await migrateReferenceSchema(db);
          return seed(db);
        },
        print: printLine,
      });
    case "token":
      return tokenCommand(config, rest);
    case "workspace":
      return workspaceCommand(config, rest);
    case "environment":
      return environmentCommand(config, rest);
    case "member":
      return memberCommand(config, rest);
    case "generate":
      return generateCommand(config, rest);
    default:
      process.stderr.write(`Unknown command: ${command}\n\n${USAGE}`);
      return EXIT_CODES.usage;
  }
}

function generateCommand(config: ServerConfig, args: string[]): Promise<number> {
  const options = parseGenerateArgs(args);
  const progress = (p: GenerateProgress) => {
    if (process.stderr.isTTY) process.stderr.write(`${p.table}: ${p.done}/${p.total}\n`);
  };
  // With the embedded store and a running server, the server does the load (it owns the data directory).
  return runAdminCommand(config, {
    name: "generate",
    request: { args },
    run: async (db) => {
      await migrateReferenceSchema(db);
      return generateMetricsData(db, options, { onProgress: progress });
    },
    print: printLine,
  });
}

/** The exit code and message for what stopped a command: the cases an operator can act on have their own. */
function failure(error: unknown): number {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof AdminUsageError) {
    process.stderr.write(`${message}\n`);
    return EXIT_CODES.usage;
  }
  if (isDataDirectoryLockedError(error)) {
    process.stderr.write(`${message}\n`);
    return EXIT_CODES.dataDirectoryInUse;
  }
  if (error instanceof ConfigError) {
    process.stderr.write(`configuration refused: ${message}\n`);
    return EXIT_CODES.config;
  }
  process.stderr.write(`${message}\n`);
  return EXIT_CODES.failure;
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (error) => {
    process.exitCode = failure(error);
  },
);
