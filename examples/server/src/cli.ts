// The CLI's entry point. Node's compile cache goes on before anything else is loaded (static imports
// would load first), so a command does not strip and compile the same TypeScript and JavaScript on every
// start: a CLI command or a server restart starts ~0.4 s of CPU sooner. Where the cache directory cannot
// be written (a read-only filesystem) Node carries on without it.
import { enableCompileCache } from "node:module";
import { applyHeapDefaults } from "@a2a-partner/a2a-core/node-runtime";

enableCompileCache?.();
// `serve` sizes V8's heap before anything else is loaded: it may start the process again in place
// (process.execve), and what was loaded before that is loaded twice.
if (process.argv[2] === "serve") applyHeapDefaults();
await import("./cli/main.ts");
