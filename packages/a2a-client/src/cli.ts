#!/usr/bin/env node
import { runCli } from "./cli/run.js";

// Ctrl-C closes the stream (the task goes on on the server); a second Ctrl-C kills the process.
const interrupt = new AbortController();
process.once("SIGINT", () => interrupt.abort());

runCli({
  argv: process.argv.slice(2),
  env: process.env,
  stdout: process.stdout,
  stderr: process.stderr,
  signal: interrupt.signal,
}).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`a2a-task: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
