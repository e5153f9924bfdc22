import {
  type CommandLineCommand,
  createPinoLogger,
  EXIT_CODES,
  runCommandLine,
  serveUntilSignalled,
} from "@a2a-partner/a2a-core/node-runtime";
import type { GenerateProgress } from "@a2a-partner/metrics-generator";
import { isDataDirectoryLockedError } from "@a2a-partner/postgres-store";
import { generateMetrics, generateOptions } from "../admin/generate-metrics.ts";
import { loadConfig, SERVICE_NAME, type ServerConfig } from "../config.ts";
import { migrateReferenceSchema } from "../migrations.ts";
import { seed } from "../seed.ts";
import { ENVIRONMENT_USAGE, environmentCommand } from "./environment-command.ts";
import { MEMBER_USAGE, memberCommand } from "./member-command.ts";
import { PRUNE_USAGE, pruneCommand } from "./prune-command.ts";
import { PUSH_SECRET_USAGE, pushSecretCommand } from "./push-secret-command.ts";
import { printLine, runAdminCommand } from "./run-admin-command.ts";
import { TOKEN_USAGE, tokenCommand } from "./token-command.ts";
import { WORKSPACE_USAGE, workspaceCommand } from "./workspace-command.ts";

const USAGE = `Usage: pnpm cli <command>
       pnpm -s cli <command> | …   (in a pipe: -s keeps pnpm's own "> script" header off stdout)

Commands:
  serve                                   run the reference server (PORT, HOST, PUBLIC_URL, DATABASE_URL, LOG_LEVEL, LOG_FORMAT)
  migrate                                 apply database migrations
  seed                                    create the demo workspace, Environment and robots; print new tokens as JSON
                                          (every run mints two; earlier ones stay valid until revoked)
${TOKEN_USAGE}${WORKSPACE_USAGE}${ENVIRONMENT_USAGE}${MEMBER_USAGE}${PUSH_SECRET_USAGE}${PRUNE_USAGE}  generate --workspace <slug> --events N --days D [--seed S] [--end <ISO-8601>]
                                          bulk-load realistic metrics records (N telemetry events plus
                                          workflow runs and alerts over D days); print a JSON summary

Exit codes: 0 done, 1 failed, 2 usage error, ${EXIT_CODES.dataDirectoryInUse} the data directory is in use by another process,
${EXIT_CODES.config} configuration refused (see the message).
`;

/**
 * Every command, one entry each: the dispatch, `--help` and "unknown command" all read this table
 * (a2a-core/node-runtime's runCommandLine), so a new command is one line here (and one in USAGE).
 * `arguments: false` refuses anything after the name.
 */
const COMMANDS: Record<string, CommandLineCommand<ServerConfig>> = {
  serve: { arguments: false, run: (config) => serveCommand(config) },
  migrate: {
    arguments: false,
    run: (config) =>
      runAdminCommand(config, {
        name: "migrate",
        request: {},
        run: migrateReferenceSchema,
        print: printLine,
      }),
  },
  seed: {
    arguments: false,
    run: (config) =>
      runAdminCommand(config, {
        name: "seed",
        request: {},
        run: async (db) => {
          await migrateReferenceSchema(db);
          return seed(db);
        },
        print: (result) => {
          printLine(result);
          // Every run mints tokens; say so where a reader looks, off stdout (a pipe reads the JSON alone).
          process.stderr.write(
            "seed: new tokens above; tokens of earlier runs stay valid (revoke them: `pnpm cli token list --workspace demo`, then `pnpm cli token revoke <id>`)\n",
          );
        },
      }),
  },
  token: { arguments: true, run: tokenCommand },
  workspace: { arguments: true, run: workspaceCommand },
  environment: { arguments: true, run: environmentCommand },
  member: { arguments: true, run: memberCommand },
  prune: { arguments: true, run: pruneCommand },
  "push-secret": { arguments: true, run: pushSecretCommand },
  generate: { arguments: true, run: generateCommand },
};

function serveCommand(config: ServerConfig): Promise<number> {
  const logger = createPinoLogger({ level: config.logLevel, format: config.logFormat, service: SERVICE_NAME });
  // cli.ts applied the heap settings before loading this module (it may have run the process again to).
  return serveUntilSignalled(logger, { ...config, serviceName: SERVICE_NAME }, async () => {
    // Loaded here: the admin commands need neither the HTTP stack nor OpenTelemetry's SDK (a second of CPU
    // each start; the SDK is loaded only when telemetry is switched on).
    const { startServer } = await import("../server.ts");
    return startServer(config, logger);
  });
}

function generateCommand(config: ServerConfig, args: string[]): Promise<number> {
  generateOptions(args); // refused here, before the store is opened or a server reached
  const progress = (p: GenerateProgress) => {
    if (process.stderr.isTTY) process.stderr.write(`${p.table}: ${p.done}/${p.total}\n`);
  };
  // With the embedded store and a running server, the server does the load (it owns the data directory).
  return runAdminCommand(config, {
    name: "generate",
    request: { args },
    run: async (db) => {
      await migrateReferenceSchema(db);
      return generateMetrics(db, args, { onProgress: progress });
    },
    print: printLine,
  });
}

// A data directory another process holds exits 75: retry once it has stopped.
void runCommandLine(process.argv.slice(2), {
  usage: USAGE,
  commands: COMMANDS,
  loadConfig: () => loadConfig(),
  exitCodeOf: (error) => (isDataDirectoryLockedError(error) ? EXIT_CODES.dataDirectoryInUse : undefined),
});
