/**
 * What publint and "Are the types wrong?" find in one packed tarball, as a list of sentences (empty: all
 * good). Both read the tarball, not the folder, so a file left out of `files` counts as missing.
 */
import { readFile } from "node:fs/promises";
import { checkPackage, createPackageFromTarballData, type Problem } from "@arethetypeswrong/core";
import { problemAffectsEntrypointResolution, problemKindInfo } from "@arethetypeswrong/core/problems";
import { publint } from "publint";
import { formatMessage } from "publint/utils";
import type { PackedPackage } from "./public-packages.ts";

/** Resolution modes a consumer can be in; `node10` (no `exports` support) is not one we serve. */
const RESOLUTION_KINDS = ["node16-cjs", "node16-esm", "bundler"] as const;

export interface TarballFindings {
  problems: string[];
  /** publint's suggestions: printed, not failed on. */
  notes: string[];
}

export async function lintTarball(pkg: PackedPackage): Promise<TarballFindings> {
  const bytes = new Uint8Array(await readFile(pkg.tarball));
  const [lint, types] = await Promise.all([publintFindings(bytes), typesProblems(pkg, bytes)]);
  return { problems: [...lint.problems, ...types], notes: lint.notes };
}

async function publintFindings(bytes: Uint8Array): Promise<TarballFindings> {
  const tarball = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  const { messages, pkg: manifest } = await publint({ pack: { tarball }, strict: true });
  const text = (message: (typeof messages)[number]) => `publint: ${formatMessage(message, manifest) ?? message.code}`;
  return {
    problems: messages.filter((message) => message.type !== "suggestion").map(text),
    notes: messages.filter((message) => message.type === "suggestion").map(text),
  };
}

async function typesProblems(pkg: PackedPackage, bytes: Uint8Array): Promise<string[]> {
  const analysis = await checkPackage(createPackageFromTarballData(bytes));
  if (analysis.types === false) return ["attw: the package ships no type declarations"];
  const esmOnly = esmOnlyEntrypoints(pkg.manifest.exports ?? {});
  return analysis.problems
    .filter((problem) => !expected(problem, esmOnly, analysis))
    .map((problem) => `attw: ${problemKindInfo[problem.kind].shortDescription} (${where(problem)})`);
}

/**
 * Problems of node10 resolution alone (no `exports` support: not served), and an ESM-only entry (no
 * `require` or `default` condition) failing `require()`, which it is meant to: nothing else.
 */
function expected(
  problem: Problem,
  esmOnly: ReadonlySet<string>,
  analysis: Parameters<typeof problemAffectsEntrypointResolution>[3],
): boolean {
  const affected = Object.keys(analysis.entrypoints).flatMap((entrypoint) =>
    RESOLUTION_KINDS.filter((kind) => problemAffectsEntrypointResolution(problem, entrypoint, kind, analysis)).map(
      (kind) => ({ entrypoint, kind }),
    ),
  );
  if (affected.length === 0) return true; // node10 only
  return (
    problem.kind === "NoResolution" &&
    affected.every(({ entrypoint, kind }) => kind === "node16-cjs" && esmOnly.has(entrypoint))
  );
}

function esmOnlyEntrypoints(exports: Record<string, unknown>): Set<string> {
  return new Set(
    Object.entries(exports)
      .filter(([, target]) => typeof target === "object" && target !== null)
      .filter(([, target]) => !("require" in (target as object)) && !("default" in (target as object)))
      .map(([subpath]) => subpath),
  );
}

function where(problem: Problem): string {
  if ("entrypoint" in problem) return `${problem.entrypoint}, ${problem.resolutionKind}`;
  if ("typesFileName" in problem) return problem.typesFileName;
  return problem.fileName;
}
