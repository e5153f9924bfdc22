/**
 * Files this package finds by path at run time. Both `src/*.ts` and the bundled `dist/index.*` sit one
 * level below the package root, so the same relative URLs hold for the sources (tests), the ESM build and
 * the CJS build (where tsup's `shims` turn `import.meta.url` into the file's URL): keep this file at the
 * top of `src/`.
 */

/** The `migrations/` folder shipped in the npm package. */
export const MIGRATIONS_DIR_URL = new URL("../migrations/", import.meta.url);

/**
 * The PGlite worker's entry, built next to the package's index (`dist/pglite-worker.js`); tests run the
 * built worker too: build first.
 */
export const WORKER_ENTRY_URL = new URL("../dist/pglite-worker.js", import.meta.url);
