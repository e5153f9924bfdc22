/**
 * Every public package as npm would publish it: packed with pnpm, then
 *
 *   - publint (strict: warnings fail) and "Are the types wrong?" on the tarball;
 *   - its README's links: inside the package (and packed), to a heading that exists, or absolute (links
 *     into the repository must name a file that exists);
 *   - a publish dry run of the workspace (`pnpm publish -r --dry-run`): private packages stay out.
 *
 *   node scripts/check-packages.ts     (`pnpm check:packages` builds first when the sources changed)
 *
 * Nothing is published. Fails (exit 1) on any finding, each printed with its package.
 */
import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { lintTarball } from "./packages/lint-tarball.ts";
import { type PackedPackage, pack, publicPackages, ROOT, repositoryUrl } from "./packages/public-packages.ts";
import { checkReadmeLinks } from "./packages/readme-links.ts";

const run = promisify(execFile);
const started = performance.now();
const destination = await mkdtemp(join(tmpdir(), "a2a-check-packages-"));
const failures: string[] = [];

try {
  const packages = publicPackages();
  const packed = await Promise.all(packages.map((pkg) => pack(pkg, destination)));
  for (const pkg of packed) {
    const { problems, notes } = await lintTarball(pkg);
    const readme = await readmeProblems(pkg);
    for (const note of notes) console.log(`${pkg.name}: ${note}`);
    failures.push(...[...problems, ...readme].map((problem) => `${pkg.name}: ${problem}`));
    console.log(`${pkg.name}@${pkg.version}: ${pkg.files.length} files, ${problems.length + readme.length} problems`);
  }
  failures.push(...(await publishDryRunProblems(packages.map((pkg) => pkg.name))));
} finally {
  await rm(destination, { recursive: true, force: true });
}

if (failures.length > 0) {
  console.error(`\n${failures.length} problem(s):\n  ${failures.join("\n  ")}`);
  process.exitCode = 1;
} else {
  console.log(`Packages OK (${((performance.now() - started) / 1000).toFixed(1)} s).`);
}

async function readmeProblems(pkg: PackedPackage): Promise<string[]> {
  if (!pkg.files.includes("README.md")) return ["README.md is not packed"];
  const markdown = await readFile(join(pkg.dir, "README.md"), "utf8");
  const repository = repositoryUrl(pkg.manifest);
  if (!repository) return ["package.json has no repository: npm shows no link back, and README links have no base"];
  return checkReadmeLinks(markdown, {
    packedFiles: new Set(pkg.files),
    repositoryUrl: repository,
    repositoryFileExists: (path) => existsSync(join(ROOT, path)),
    repositoryMarkdown: (path) => readFileSync(join(ROOT, path), "utf8"),
  }).map(({ line, target, problem }) => `README.md:${line}: ${target}: ${problem}`);
}

/** The workspace's publish, dry: it must go through and offer the public packages only. */
async function publishDryRunProblems(publicNames: string[]): Promise<string[]> {
  const { stdout, stderr } = await run("pnpm", ["publish", "-r", "--dry-run", "--no-git-checks"], {
    cwd: ROOT,
    maxBuffer: 16 * 1024 * 1024,
  }).catch((error: { stdout?: string; stderr?: string; message: string }) => {
    throw new Error(`pnpm publish -r --dry-run failed:\n${error.stderr ?? ""}${error.stdout ?? ""}${error.message}`);
  });
  const offered = [...`${stdout}\n${stderr}`.matchAll(/^\+ (@?[^@\s]+)@\S+$/gm)].map((match) => match[1] ?? "");
  const problems = offered
    .filter((name) => !publicNames.includes(name))
    .map((name) => `publish dry run: ${name} would be published, but it is not a public package`);
  console.log(`publish dry run: ${offered.length === 0 ? "nothing new to publish" : offered.join(", ")}`);
  return problems;
}
