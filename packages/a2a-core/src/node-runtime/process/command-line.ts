import { parseArgs } from "node:util";
import { ConfigError } from "../settings.js";
import { endQuietlyOnClosedPipe } from "./shutdown-signals.js";

/**
 * How a command-line program and a server exit, one table for the code, the docs and the tests. The two
 * special codes follow sysexits(3), so supervisors and scripts can tell "try again later" from "fix the
 * configuration".
 */
export const EXIT_CODES = {
  ok: 0,
  /** Anything unexpected, or a command naming what does not exist (unknown workspace, no matching token). */
  failure: 1,
  /** The command line or an admin request was malformed (bad flag, missing argument, invalid value …). */
  usage: 2,
  /** EX_TEMPFAIL: another process holds what the command needs (a data directory); retry once it has stopped. */
  dataDirectoryInUse: 75,
  /** EX_CONFIG: the environment asks for something the program refuses to run with (ConfigError). */
  config: 78,
} as const;

/** A problem with what the operator asked for (not a fault): the program exits 2 with the message. */
export class UsageError extends Error {}

/**
 * A well-formed command naming something that does not exist (a workspace, a token …): the command line
 * was fine, so the program exits 1 (failure), not 2 (usage), with the message.
 */
export class NotFoundError extends UsageError {}

type OptionSpecs = Record<string, { type: "string" | "boolean" }>;

/** The command line after `<group>`: its verb, the other words, the options; malformed is a UsageError. */
export function parseCommandArgs(
  args: string[],
  options: OptionSpecs,
  usage: string,
): { verb: string | undefined; positionals: string[]; values: Record<string, string | boolean | undefined> } {
  try {
    const { positionals, values } = parseArgs({ args, allowPositionals: true, options });
    const [verb, ...rest] = positionals;
    return { verb, positionals: rest, values };
  } catch (error) {
    throw new UsageError(`${error instanceof Error ? error.message : String(error)}\n\n${usage}`);
  }
}

/** Refuses arguments a verb does not take, instead of ignoring them. */
export function expectPositionals(positionals: string[], count: number, what: string, usage: string): void {
  if (positionals.length !== count) throw new UsageError(`${what}\n\n${usage}`);
}

/** The options of a command that takes no words; any word is a UsageError. */
export function parseOptionsOnly(
  command: string,
  args: string[],
  options: OptionSpecs,
  usage: string,
): Record<string, string | boolean | undefined> {
  const { verb, positionals, values } = parseCommandArgs(args, options, usage);
  expectPositionals([...(verb === undefined ? [] : [verb]), ...positionals], 0, `${command} takes only options`, usage);
  return values;
}

/** A command of `runCommandLine`: what it does with the rest of the line; the number is its exit code. */
export interface CommandLineCommand<Config> {
  /** `false`: anything after the command's name is refused. */
  arguments: boolean;
  /** Resolves to the exit code; -1 keeps the process running (a server). */
  run(config: Config, args: string[]): Promise<number>;
}

export interface CommandLine<Config> {
  /** Printed for `help`, `--help`, `-h` (exit 0), no command (exit 2) and an unknown one (exit 2). */
  usage: string;
  /** Every command, one entry each: the dispatch, `--help` and "unknown command" all read this table. */
  commands: Readonly<Record<string, CommandLineCommand<Config>>>;
  /** Read once a command is known to run (help needs no configuration); a ConfigError exits 78. */
  loadConfig(): Config;
  /** The exit code of an error this program knows besides UsageError and ConfigError; else 1. */
  exitCodeOf?(error: unknown): number | undefined;
}

const HELP_FLAGS = ["--help", "-h"];

/**
 * Runs `argv` (without node and the script) against a table of commands and sets the exit code: a
 * UsageError is 2 (NotFoundError 1), a ConfigError 78 (`configuration refused: …`), whatever
 * `exitCodeOf` says, anything else 1; its message on stderr. A closed stdout or stderr (`| head -1`)
 * ends the output quietly.
 */
export function runCommandLine<Config>(argv: string[], cli: CommandLine<Config>): Promise<void> {
  endQuietlyOnClosedPipe(process.stdout);
  endQuietlyOnClosedPipe(process.stderr);
  return dispatch(argv, cli).then(
    (code) => {
      if (code >= 0) process.exitCode = code;
    },
    (error: unknown) => {
      process.exitCode = failure(error, cli);
    },
  );
}

async function dispatch<Config>(argv: string[], cli: CommandLine<Config>): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "help" || HELP_FLAGS.includes(name)) {
    process.stdout.write(cli.usage);
    return name === undefined ? EXIT_CODES.usage : EXIT_CODES.ok;
  }
  // Checked before --help: `workspace --help` must say the command does not exist, not print the usage
  // and exit 0 as if it did.
  const command = Object.hasOwn(cli.commands, name) ? cli.commands[name] : undefined;
  if (!command) {
    process.stderr.write(`Unknown command: ${name}\n\n${cli.usage}`);
    return EXIT_CODES.usage;
  }
  // Help needs no configuration, and never runs the command it is asked about (`seed --help` used to seed).
  if (rest.some((arg) => HELP_FLAGS.includes(arg))) {
    process.stdout.write(cli.usage);
    return EXIT_CODES.ok;
  }
  if (!command.arguments && rest.length > 0) {
    process.stderr.write(`${name} takes no arguments, got: ${rest.join(" ")}\n\n${cli.usage}`);
    return EXIT_CODES.usage;
  }
  return command.run(cli.loadConfig(), rest);
}

/** The exit code and message for what stopped a command: the cases an operator can act on have their own. */
function failure<Config>(error: unknown, cli: CommandLine<Config>): number {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof UsageError) {
    process.stderr.write(`${message}\n`);
    // A well-formed command naming what does not exist failed (1); a malformed one is a usage error (2).
    return error instanceof NotFoundError ? EXIT_CODES.failure : EXIT_CODES.usage;
  }
  if (error instanceof ConfigError) {
    process.stderr.write(`configuration refused: ${message}\n`);
    return EXIT_CODES.config;
  }
  process.stderr.write(`${message}\n`);
  return cli.exitCodeOf?.(error) ?? EXIT_CODES.failure;
}
