import { NotFoundError, UsageError } from "@a2a-partner/a2a-core/node-runtime";
import type { Database, Queryable } from "@a2a-partner/postgres-store";
import { pruneTasks } from "../retention/prune-tasks.ts";
import { pushSecret } from "./push-secret-operations.ts";
import { listed, noSuchWorkspace, one, record, type Stored, text, workspaceIdOf } from "./request-fields.ts";

/**
 * What an operator does to a deployment beyond the demo `seed`: workspaces, their Environments (and
 * robots), their members. Each operation takes the request as JSON (the CLI's, or the control socket's
 * when a server owns the embedded store) and checks it here, so both paths refuse the same mistakes.
 */

const SLUG = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;
const STORE_ID = /^[\x21-\x7e]{1,64}$/; // printable ASCII, no spaces: what a partner sends as storeId
const ROLE = /^[a-z][a-z0-9_-]{0,31}$/;
const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,255}$/;
const MAX_ROBOTS = 1_000;

export type Visibility = "public" | "private";

export interface WorkspaceListing {
  id: string;
  slug: string;
  name: string;
  visibility: Visibility;
  /** The store id of the workspace's default Environment, if one was set (`environment default`). */
  defaultEnvironment: string | null;
  created: string;
}

export interface EnvironmentListing {
  id: string;
  workspace: string;
  storeId: string;
  name: string;
  robots: number;
  /** Whether it is its workspace's default Environment. */
  default: boolean;
  created: string;
}

export interface MemberListing {
  workspace: string;
  user: string;
  role: string;
  status: string;
  created: string;
}

/** `workspace create <slug> [--name …] [--visibility public|private]`. */
export async function createWorkspace(db: Queryable, input: unknown): Promise<WorkspaceListing> {
  const request = record(input);
  const slug = text(request.slug, "the workspace slug");
  if (!SLUG.test(slug)) {
    throw new UsageError(
      `a workspace slug is 1 to 64 lowercase letters, digits and inner hyphens (it appears in URLs); got "${slug}"`,
    );
  }
  const visibility = visibilityOf(request.visibility ?? "private");
  const name = request.name === undefined ? slug : text(request.name, "--name");
  const { rows } = await db.query<{ id: string }>(
    `insert into workspaces (slug, name, visibility) values ($1, $2, $3)
     on conflict (slug) do nothing returning id`,
    [slug, name, visibility],
  );
  if (rows.length === 0) throw new UsageError(`a workspace with slug "${slug}" already exists`);
  return one(await listWorkspaces(db, { slug }));
}

/** `workspace list`: every workspace, oldest first. */
export async function listWorkspaces(db: Queryable, input: unknown = {}): Promise<WorkspaceListing[]> {
  const slug = record(input).slug;
  const { rows } = await db.query<Stored<WorkspaceListing>>(
    `select w.id, w.slug, w.name, w.visibility, e.store_id as "defaultEnvironment", w.created_at as created
       from workspaces w
       left join environments e on e.id = w.default_environment_id
      where $1::text is null or w.slug = $1
      order by w.created_at, w.id`,
    [typeof slug === "string" ? slug : null],
  );
  return rows.map(listed);
}

/** `workspace visibility <slug> public|private`: who may read the workspace's metrics without a membership. */
export async function setWorkspaceVisibility(db: Queryable, input: unknown): Promise<WorkspaceListing> {
  const request = record(input);
  const slug = text(request.slug, "the workspace slug");
  const visibility = visibilityOf(request.visibility);
  const { rowCount } = await db.query("update workspaces set visibility = $2 where slug = $1", [slug, visibility]);
  if (rowCount === 0) throw noSuchWorkspace(slug);
  return one(await listWorkspaces(db, { slug }));
}

/** Robots a new Environment gets when `--robots` is not given. */
export const DEFAULT_ROBOTS = 3;

/** `environment create --workspace <slug> <storeId> [--name …] [--robots N]`: the Environment and its robots. */
export async function createEnvironment(db: Database, input: unknown): Promise<EnvironmentListing> {
  const request = record(input);
  const slug = text(request.workspace, "--workspace");
  const storeId = text(request.storeId, "the store id");
  if (!STORE_ID.test(storeId)) {
    throw new UsageError(`a store id is 1 to 64 printable ASCII characters without spaces; got "${storeId}"`);
  }
  // Three unless told, as `seed`'s store-001: an Environment without robots ends every task `rejected`.
  const robots = request.robots === undefined ? DEFAULT_ROBOTS : Number(request.robots);
  if (!Number.isSafeInteger(robots) || robots < 0 || robots > MAX_ROBOTS) {
    throw new UsageError(`--robots must be a whole number from 0 to ${MAX_ROBOTS}; got "${String(request.robots)}"`);
  }
  const name = request.name === undefined ? storeId : text(request.name, "--name");
  await db.transaction(async (tx) => {
    const workspaceId = await workspaceIdOf(tx, slug);
    const created = await tx.query<{ id: string }>(
      `insert into environments (workspace_id, store_id, name) values ($1, $2, $3)
       on conflict (workspace_id, store_id) do nothing returning id`,
      [workspaceId, storeId, name],
    );
    const environmentId = created.rows[0]?.id;
    if (!environmentId) throw new UsageError(`workspace "${slug}" already has an Environment "${storeId}"`);
    if (robots > 0) {
      await tx.query(
        `insert into robots (environment_id, name)
         select $1, $2 || '-robot-' || lpad(n::text, 3, '0') from generate_series(1, $3::int) as n`,
        [environmentId, storeId, robots],
      );
    }
  });
  return one(await listEnvironments(db, { workspace: slug, storeId }));
}

/** `environment list [--workspace <slug>]`: Environments with their robot counts, oldest first. */
export async function listEnvironments(db: Queryable, input: unknown = {}): Promise<EnvironmentListing[]> {
  const request = record(input);
  const slug = typeof request.workspace === "string" ? request.workspace : null;
  if (slug !== null) await workspaceIdOf(db, slug);
  const { rows } = await db.query<Stored<EnvironmentListing>>(
    `select e.id, w.slug as workspace, e.store_id as "storeId", e.name,
            (select count(*)::int from robots r where r.environment_id = e.id) as robots,
            coalesce(w.default_environment_id = e.id, false) as "default", e.created_at as created
       from environments e
       join workspaces w on w.id = e.workspace_id
      where ($1::text is null or w.slug = $1) and ($2::text is null or e.store_id = $2)
      order by e.created_at, e.id`,
    [slug, typeof request.storeId === "string" ? request.storeId : null],
  );
  return rows.map(listed);
}

/** `environment default --workspace <slug> <storeId>`: the workspace's default Environment. */
export async function setDefaultEnvironment(db: Queryable, input: unknown): Promise<EnvironmentListing> {
  const request = record(input);
  const slug = text(request.workspace, "--workspace");
  const storeId = text(request.storeId, "the store id");
  const workspaceId = await workspaceIdOf(db, slug);
  // One statement: the Environment must be this workspace's, never another's with the same store id.
  const { rowCount } = await db.query(
    `update workspaces w set default_environment_id = e.id
       from environments e
      where w.id = $1 and e.workspace_id = w.id and e.store_id = $2`,
    [workspaceId, storeId],
  );
  if (rowCount === 0) throw new NotFoundError(`workspace "${slug}" has no Environment "${storeId}"`);
  return one(await listEnvironments(db, { workspace: slug, storeId }));
}

/**
 * `member add --workspace <slug> <email> [--role <role>]`: the user (created if new) becomes an active
 * member with that role; an existing membership takes the role and becomes active again.
 */
export async function addMember(db: Database, input: unknown): Promise<MemberListing> {
  const request = record(input);
  const slug = text(request.workspace, "--workspace");
  const email = text(request.user, "the user's email");
  if (!EMAIL.test(email)) throw new UsageError(`"${email}" is not an email address`);
  const role = request.role === undefined ? "member" : text(request.role, "--role");
  if (!ROLE.test(role)) {
    throw new UsageError(`a role is a lowercase word (letters, digits, - and _), e.g. member; got "${role}"`);
  }
  await db.transaction(async (tx) => {
    const workspaceId = await workspaceIdOf(tx, slug);
    const user = await tx.query<{ id: string }>(
      "insert into users (email) values ($1) on conflict (email) do update set email = excluded.email returning id",
      [email],
    );
    await tx.query(
      `insert into memberships (workspace_id, user_id, role, status) values ($1, $2, $3, 'active')
       on conflict (workspace_id, user_id) do update set role = excluded.role, status = 'active'`,
      [workspaceId, user.rows[0]?.id, role],
    );
  });
  return one(await listMembers(db, { workspace: slug, user: email }));
}

/** `member list --workspace <slug>`: the workspace's members, oldest first. */
export async function listMembers(db: Queryable, input: unknown): Promise<MemberListing[]> {
  const request = record(input);
  const slug = text(request.workspace, "--workspace");
  const workspaceId = await workspaceIdOf(db, slug);
  const { rows } = await db.query<Stored<MemberListing>>(
    `select $3::text as workspace, u.email as user, m.role, m.status, m.created_at as created
       from memberships m join users u on u.id = m.user_id
      where m.workspace_id = $1 and ($2::text is null or u.email = $2)
      order by m.created_at, u.email`,
    [workspaceId, typeof request.user === "string" ? request.user : null, slug],
  );
  return rows.map(listed);
}

/** The operations a running server runs for the CLI over its control socket, by the socket's name for them. */
export const OPERATOR_OPERATIONS = {
  "workspace-create": createWorkspace,
  "workspace-list": listWorkspaces,
  "workspace-visibility": setWorkspaceVisibility,
  "environment-create": createEnvironment,
  "environment-list": listEnvironments,
  "environment-default": setDefaultEnvironment,
  "member-add": addMember,
  "member-list": listMembers,
  prune: pruneTasks,
  "push-secret": pushSecret,
} as const satisfies Record<string, (db: Database, input: unknown) => Promise<unknown>>;

export type OperatorOperation = keyof typeof OPERATOR_OPERATIONS;

export function isOperatorOperation(name: string): name is OperatorOperation {
  return Object.hasOwn(OPERATOR_OPERATIONS, name);
}

function visibilityOf(value: unknown): Visibility {
  if (value === "public" || value === "private") return value;
  throw new UsageError(`visibility must be public or private; got "${String(value)}"`);
}
