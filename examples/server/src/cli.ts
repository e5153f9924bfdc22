// The CLI's entry point. Node's compile cache goes on before anything else is loaded (static imports
// would load first), so a command does not strip and compile the same TypeScript and JavaScript on every
// start: a CLI command or a server restart starts ~0.4 s of CPU sooner. Where the cache directory cannot
// be written (a read-only filesystem) Node carries on without it.
import { enableCompileCache } from "node:module";

enableCompileCache?.();
await import("./cli/main.ts");
