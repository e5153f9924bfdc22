import { NotFoundError, UsageError } from "@a2a-partner/a2a-core/node-runtime";
import type { Queryable } from "@a2a-partner/postgres-store";

// How the operator operations read their request (the CLI's, or the control socket's JSON) and find the
// workspace it names: one place, so every operation refuses the same mistakes with the same words.

/** The id of the workspace with this slug; a NotFoundError (exit 1) when there is none, with `hint`. */
export async function workspaceIdOf(db: Queryable, slug: string, hint?: string): Promise<string> {
  const { rows } = await db.query<{ id: string }>("select id from workspaces where slug = $1", [slug]);
  const id = rows[0]?.id;
  if (!id) throw noSuchWorkspace(slug, hint);
  return id;
}

export function noSuchWorkspace(slug: string, hint = "see `pnpm cli workspace list`"): NotFoundError {
  return new NotFoundError(`no workspace with slug "${slug}" (${hint})`);
}

export function record(input: unknown): Record<string, unknown> {
  return typeof input === "object" && input !== null ? (input as Record<string, unknown>) : {};
}

/** A required text field: present, a string, not empty, without NUL (PostgreSQL text cannot hold it). */
export function text(value: unknown, what: string): string {
  if (typeof value !== "string" || value.length === 0) throw new UsageError(`${what} is missing`);
  if (value.includes("\u0000") || value.length > 256) throw new UsageError(`${what} is not valid text`);
  return value;
}

export function one<T>(rows: T[]): T {
  const row = rows[0];
  if (row === undefined) throw new Error("the row just written was not found");
  return row;
}

/** A listing's row as the database answers it: its `created` a Date. */
export type Stored<Listing extends { created: string }> = Omit<Listing, "created"> & { created: Date };

/** The row as an operation answers it: `created` in ISO-8601 (UTC), like every time the CLI prints. */
export function listed<Listing extends { created: string }>(row: Stored<Listing>): Listing {
  return { ...row, created: row.created.toISOString() } as Listing;
}
