/**
 * A Worker of the consumer app on Cloudflare's workerd, through miniflare: bundled first, as wrangler
 * does (workerd resolves no npm packages), with Node's built-ins left to workerd's `nodejs_compat`.
 */
import { builtinModules } from "node:module";
import { join } from "node:path";
import { build, type Plugin } from "esbuild";
import { Miniflare } from "miniflare";

/** A CommonJS dependency's require() of a built-in, as wrangler's nodejs_compat bundling allows it. */
const REQUIRE_SHIM =
  'import { createRequire as __createRequire } from "node:module"; const require = __createRequire("/");';
/** The newest date this workerd knows is enough; the flags matter more. */
const COMPATIBILITY_DATE = "2026-07-01";

export interface BundleOptions {
  /**
   * For a Worker with the `nodejs_compat` flag: Node's built-ins stay imports for workerd to provide, and
   * a CommonJS dependency may require() them (as wrangler's bundling allows). Without it they are errors.
   */
  nodejsCompat?: boolean;
  /** Resolve these imports to an empty module: an optional peer the Worker does not install (`pg`). */
  stubs?: string[];
}

/** Bundles `entry` (a file of the app) into `outDir/worker.js`, ESM, workerd's export conditions first. */
export async function bundleWorker(
  app: string,
  entry: string,
  outDir: string,
  options: BundleOptions = {},
): Promise<string> {
  const outfile = join(outDir, "worker.js");
  const builtins = builtinModules.flatMap((name) => (name.startsWith("node:") ? [name] : [name, `node:${name}`]));
  await build({
    entryPoints: [join(app, entry)],
    absWorkingDir: app,
    bundle: true,
    format: "esm",
    platform: "neutral",
    conditions: ["workerd", "worker", "browser"],
    mainFields: ["module", "main"],
    external: options.nodejsCompat ? builtins : [],
    banner: options.nodejsCompat ? { js: REQUIRE_SHIM } : {},
    outfile,
    logLevel: "silent",
    plugins: options.stubs?.length ? [stubPlugin(options.stubs)] : [],
  });
  return outfile;
}

function stubPlugin(names: string[]): Plugin {
  const filter = new RegExp(`^(${names.join("|")})$`);
  return {
    name: "stubs",
    setup(builder) {
      builder.onResolve({ filter }, (args) => ({ path: args.path, namespace: "stub" }));
      builder.onLoad({ filter: /.*/, namespace: "stub" }, () => ({ contents: "export default {};" }));
    },
  };
}

/** Starts workerd on 127.0.0.1 with the bundled Worker; `flags` are its compatibility flags. */
export async function startWorker(
  bundle: string,
  outDir: string,
  flags: string[] = [],
): Promise<{ url: URL; mf: Miniflare }> {
  const mf = new Miniflare({
    modules: true,
    scriptPath: bundle,
    modulesRoot: outDir,
    compatibilityDate: COMPATIBILITY_DATE,
    compatibilityFlags: flags,
    host: "127.0.0.1",
    port: 0,
  });
  try {
    return { url: await mf.ready, mf };
  } catch (error) {
    await mf.dispose().catch(() => undefined);
    throw error;
  }
}
