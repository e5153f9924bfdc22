/**
 * How the CLI and the server exit, one table for the code, the docs and the tests. The two special codes
 * follow sysexits(3), so supervisors and scripts can tell "try again later" from "fix the configuration".
 */
export const EXIT_CODES = {
  ok: 0,
  /** Anything unexpected, or a command naming what does not exist (unknown workspace, no matching token). */
  failure: 1,
  /** The command line or an admin request was malformed (bad flag, missing argument, invalid value …). */
  usage: 2,
  /** EX_TEMPFAIL: another process holds the embedded data directory; retry once it has stopped. */
  dataDirectoryInUse: 75,
  /** EX_CONFIG: the environment asks for something the server refuses to run with. */
  config: 78,
} as const;
