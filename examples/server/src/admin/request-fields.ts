import { NotFoundError, UsageError } from "@a2a-partner/a2a-core/node-runtime";
import type { Queryable } from "@a2a-partner/postgres-store";

// How the operator operations read their request (the CLI's, or the control socket's JSON) and find the
// workspace it names: one place, so every operation refuses the same mistakes with the same words.

export async function workspaceIdOf(db: Queryable, slug: string): Promise<string> {
  const { rows } = await db.query<{ id: string }>("select id from workspaces where slug = $1", [slug]);
  const id = rows[0]?.id;
  if (!id) throw noSuchWorkspace(slug);
  return id;
}

export function noSuchWorkspace(slug: string): NotFoundError {
  return new NotFoundError(`no workspace with slug "${slug}" (see \`pnpm cli workspace list\`)`);
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
