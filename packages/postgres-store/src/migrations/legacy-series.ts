/**
 * The single migration series of earlier releases: `0001_core` … `0007_list_tasks`, all in this package,
 * which created the store's tables, the metrics tables and the reference server's domain at once. Today
 * those tables come from three sources (this package, metrics-core, the reference server), whose first
 * files together create exactly the schema the legacy series left behind.
 *
 * The checksums are the fingerprint of a genuine legacy database: only a `schema_migrations` that records
 * all seven files with these checksums is adopted. Public for tools (and tests) that look at or build
 * such a database; version → sha256 of the file.
 */
export const LEGACY_MIGRATION_SERIES: ReadonlyMap<number, string> = new Map([
  [1, "c467f1f464412dbaa79be080c2b68ed0d29ca1c8159c51e59d3544a624e9f720"],
  [2, "c44e153b932fb47a1cd0445c40650675e660b70da1f7c3d2ac6a6bd3f0423f23"],
  [3, "cf0cd4fb80ecf5bb9b2ec7731bb14f18f078c12d695b1fda64f6daed3c6a70dd"],
  [4, "dc463d16b3743a94403541954e785089b104f7e21ec939589e33abfb9e76fa4e"],
  [5, "e8b7a1e37a74c2014908dd21467e421607b6bd934cbd13eb069444b040ceadb5"],
  [6, "149e65b8e9157f17878256355e1fda3c7ae000361796ad271891c77b2b3364da"],
  [7, "0eb225f43948a4ed793ae17cbe97e4574e3bd3bf1dc810915803a2ad505f6df3"],
]);

/** The source the legacy rows are kept under once `schema_migrations` has the new layout. */
export const LEGACY_SOURCE = "legacy";

/**
 * Per source, the last version the legacy series already covers: on an adopted database these files are
 * recorded as applied without running them (their tables are there). Later files of a source run as usual.
 */
export const LEGACY_BASELINES: ReadonlyMap<string, number> = new Map([
  ["a2a-store", 1],
  ["metrics", 1],
  ["reference-server", 1],
]);

/** Why a legacy `schema_migrations` (rows of version → checksum) cannot be adopted, or undefined if it can. */
export function legacyRefusal(recorded: ReadonlyMap<number, string>): string | undefined {
  const unknown = [...recorded.keys()].filter((version) => !LEGACY_MIGRATION_SERIES.has(version));
  if (unknown.length > 0) {
    return `it records migration versions this release does not know (${unknown.join(", ")})`;
  }
  const missing = [...LEGACY_MIGRATION_SERIES.keys()].filter((version) => !recorded.has(version));
  if (missing.length > 0) {
    return (
      `it is only partly migrated (versions ${missing.join(", ")} of 1..7 are missing): migrate it with the ` +
      "previous release of @a2a-partner/postgres-store first, then run this one"
    );
  }
  const edited = [...LEGACY_MIGRATION_SERIES].filter(([version, sum]) => recorded.get(version) !== sum).map(([v]) => v);
  if (edited.length > 0) {
    return `versions ${edited.join(", ")} were applied from files other than the released ones`;
  }
  return undefined;
}
