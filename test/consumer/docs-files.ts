import { join } from "node:path";

/**
 * The docs' examples the consumer app runs as a reader copies them, copied in beside the files of app/ at
 * install (consumer-app.ts): docs/embedding.md's store contract test and the stores it opens, and the
 * executor and token check the docs' snippets take as given (the app's embedding serves them).
 */
export const CONSUMER_DOCS_FILES = ["embedding/store-contract.test.ts", "embedding/my-stores.ts", "context.ts"].map(
  (file) => join(import.meta.dirname, "..", "..", "docs", "examples", file),
);
