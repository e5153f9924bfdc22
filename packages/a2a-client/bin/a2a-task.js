#!/usr/bin/env node
// The `a2a-task` command. A file of its own, committed, so that package managers can link the bin on
// install, before the package is built (the CLI itself is dist/cli.js).
import "../dist/cli.js";
