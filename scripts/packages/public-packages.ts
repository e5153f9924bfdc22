/**
 * The packages this repository publishes, and their tarballs as npm would get them. `pnpm pack` (not
 * `npm pack`) because it turns `workspace:^` dependencies into the version ranges npm can install.
 */
import { execFile } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
export const ROOT = resolve(import.meta.dirname, "..", "..");

export interface PublicPackage {
  name: string;
  version: string;
  dir: string;
  manifest: PackageManifest;
}

export interface PackageManifest {
  name: string;
  version: string;
  private?: boolean;
  repository?: string | { url: string; directory?: string };
  exports?: Record<string, unknown>;
  [field: string]: unknown;
}

export interface PackedPackage extends PublicPackage {
  /** The tarball's path. */
  tarball: string;
  /** Paths inside the package (`dist/index.js`, `README.md`, …). */
  files: string[];
}

/** Every non-private package under packages/, by directory name. */
export function publicPackages(): PublicPackage[] {
  const packagesDir = join(ROOT, "packages");
  return readdirSync(packagesDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => join(packagesDir, entry.name))
    .map((dir) => ({ dir, manifest: JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as PackageManifest }))
    .filter(({ manifest }) => manifest.private !== true)
    .map(({ dir, manifest }) => ({ name: manifest.name, version: manifest.version, dir, manifest }));
}

/** Packs one package into `destination` (built dist/ expected: build first). */
export async function pack(pkg: PublicPackage, destination: string): Promise<PackedPackage> {
  const { stdout } = await run("pnpm", ["pack", "--json", "--pack-destination", destination], {
    cwd: pkg.dir,
    maxBuffer: 16 * 1024 * 1024,
  });
  // pnpm may print lifecycle lines before the JSON; the JSON object is the rest from the first "{".
  const packed = JSON.parse(stdout.slice(stdout.indexOf("{"))) as { filename: string; files: Array<{ path: string }> };
  return { ...pkg, tarball: packed.filename, files: packed.files.map((file) => file.path) };
}

/** The repository's https URL from a package.json `repository` field (`git+https://….git` included). */
export function repositoryUrl(manifest: PackageManifest): string | undefined {
  const field = manifest.repository;
  const url = typeof field === "string" ? field : field?.url;
  return url?.replace(/^git\+/, "").replace(/\.git$/, "");
}
