// The entry of the worker thread that runs an embedded PGlite database (see pglite/pglite-worker-database.ts).
// Built as its own file next to the package's index; nothing to import from here.
import { workerData } from "node:worker_threads";
import type { WorkerInit } from "./pglite/pglite-worker-messages.js";
import { serveDatabase } from "./pglite/pglite-worker-server.js";

void serveDatabase(workerData as WorkerInit);
