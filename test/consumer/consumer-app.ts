/**
 * The consumer app: the four packages packed as npm would publish them, installed with npm (not pnpm)
 * into a folder outside the workspace, with the files of app/ beside them, and the docs' examples the app
 * runs as a reader copies them (CONSUMER_DOCS_FILES, docs-files.ts).
 *
 * The install is cached: its folder is named by a hash of the tarballs, of app/, of those examples and of
 * this checkout's path, so an unchanged build reuses the last install (a changed package or app file installs afresh; A2A_CONSUMER_FRESH=1
 * always does). npm keeps its own download cache (~/.npm) and is asked to prefer it.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { cp, mkdir, mkdtemp, readdir, readFile, rename, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { promisify } from "node:util";
import { pack, publicPackages, ROOT } from "../../scripts/packages/public-packages.ts";
import { CONSUMER_DOCS_FILES } from "./docs-files.ts";

const run = promisify(execFile);
const TEMPLATE = join(import.meta.dirname, "app");
const CACHE_ROOT = join(tmpdir(), "a2a-consumer-apps");
/** Installs of other builds older than this are removed when a new one is made. */
const STALE_MS = 60 * 60_000;
/** Bumped when the recipe below changes, so an install made by an older recipe is not reused. */
const RECIPE = "3";

export interface ConsumerApp {
  dir: string;
  /** Whether this run installed it (false: an identical earlier install was reused). */
  installed: boolean;
  /** What the install took, in ms (0 when reused). */
  installMs: number;
}

export async function prepareConsumerApp(): Promise<ConsumerApp> {
  await run(process.execPath, [join(ROOT, "scripts", "build-if-stale.ts")], { cwd: ROOT });
  await mkdir(CACHE_ROOT, { recursive: true });
  const staging = await mkdtemp(join(CACHE_ROOT, "staging-"));
  try {
    const packed = await Promise.all(publicPackages().map((pkg) => pack(pkg, staging)));
    // This checkout's path too: the install links this checkout's Vitest (another checkout gets its own).
    const hash = createHash("sha256").update(RECIPE).update(ROOT);
    for (const pkg of packed) hash.update(pkg.name).update(await readFile(pkg.tarball));
    for (const file of (await readdir(TEMPLATE)).sort()) hash.update(file).update(await readFile(join(TEMPLATE, file)));
    for (const file of CONSUMER_DOCS_FILES) hash.update(basename(file)).update(await readFile(file));
    const dir = join(CACHE_ROOT, hash.digest("hex").slice(0, 16));
    if (existsSync(join(dir, ".installed")) && process.env.A2A_CONSUMER_FRESH !== "1") {
      return { dir, installed: false, installMs: 0 };
    }
    const started = performance.now();
    const dependencies = Object.fromEntries(
      packed.map((pkg) => [pkg.name, `file:./tarballs/${basename(pkg.tarball)}`]),
    );
    await mkdir(join(staging, "tarballs"));
    for (const pkg of packed) await rename(pkg.tarball, join(staging, "tarballs", basename(pkg.tarball)));
    await cp(TEMPLATE, staging, { recursive: true });
    for (const file of CONSUMER_DOCS_FILES) await cp(file, join(staging, basename(file)));
    await writeFile(join(staging, "package.json"), JSON.stringify(manifest(dependencies), null, 2));
    await npmInstall(staging);
    await linkWorkspaceVitest(staging);
    await writeFile(join(staging, ".installed"), new Date().toISOString());
    await rm(dir, { recursive: true, force: true });
    await rename(staging, dir);
    await removeStaleInstalls(dir);
    return { dir, installed: true, installMs: performance.now() - started };
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

function manifest(packages: Record<string, string>) {
  return {
    name: "a2a-consumer-app",
    private: true,
    type: "module",
    dependencies: {
      ...packages,
      // The embedded database of postgres-store's default (an optional peer), and a2a-core's zod peer.
      "@electric-sql/pglite": "^0.5.16",
      zod: "^4",
      // The optional peers of the gRPC entries (a2a-core/grpc, a2a-client/grpc), which this app loads.
      "@grpc/grpc-js": "^1.14.7",
      "@bufbuild/protobuf": "^2.17.0",
    },
    // A consumer with skipLibCheck off, as the READMEs tell it: the optional peers' types, and PGlite's.
    devDependencies: {
      "@types/node": "^24",
      "@opentelemetry/api": "^1.9.0",
      "@types/pg": "^8",
      "@types/emscripten": "^1",
    },
  };
}

/** npm as a user runs it, without the npm_config_* that `pnpm test` puts in the environment. */
async function npmInstall(dir: string): Promise<void> {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^(npm_|pnpm_)/i.test(name) && name !== "NODE_OPTIONS"),
  );
  await run("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", "--no-package-lock"], {
    cwd: dir,
    env,
    maxBuffer: 16 * 1024 * 1024,
  }).catch((error: { stderr?: string; message: string }) => {
    throw new Error(`npm install of the packed packages failed: ${error.stderr ?? error.message}`);
  });
}

/**
 * a2a-core/testing's peer, Vitest, linked from this workspace rather than installed again: it is not
 * what the consumer test checks, and installing it (with its bundler) would double the install's time.
 */
async function linkWorkspaceVitest(dir: string): Promise<void> {
  const vitest = resolve(import.meta.dirname, "node_modules", "vitest");
  await symlink(vitest, join(dir, "node_modules", "vitest"), "dir");
}

async function removeStaleInstalls(keep: string): Promise<void> {
  for (const name of await readdir(CACHE_ROOT)) {
    const path = join(CACHE_ROOT, name);
    if (path === keep) continue;
    const { mtimeMs } = await stat(path).catch(() => ({ mtimeMs: Date.now() }));
    if (Date.now() - mtimeMs > STALE_MS) await rm(path, { recursive: true, force: true });
  }
}
