import type { Database } from "@a2a-partner/postgres-store";
import { createToken } from "./auth/tokens.ts";

export interface SeedResult {
  workspace: { uuid: string; slug: string };
  storeId: string;
  partnerToken: string;
  userToken: string;
}

export const DEMO = {
  workspaceSlug: "demo",
  workspaceName: "Demo Grocery",
  storeId: "store-001",
  environmentName: "Demo Grocery, downtown store",
  robots: ["robot-1", "robot-2", "robot-3"],
  userEmail: "demo@example.com",
} as const;

/**
 * The demo data, created if missing (running it again changes nothing but adds fresh tokens): workspace
 * `demo`, Environment `store-001` with three robots, an active member, and a new partner and user token.
 */
export async function seed(db: Database): Promise<SeedResult> {
  const ids = await db.transaction(async (tx) => {
    const workspace = await tx.query<{ id: string }>(
      `insert into workspaces (slug, name, visibility) values ($1, $2, 'private')
       on conflict (slug) do update set slug = excluded.slug returning id`,
      [DEMO.workspaceSlug, DEMO.workspaceName],
    );
    const workspaceId = workspace.rows[0]?.id as string;
    const environment = await tx.query<{ id: string }>(
      `insert into environments (workspace_id, store_id, name) values ($1, $2, $3)
       on conflict (workspace_id, store_id) do update set store_id = excluded.store_id returning id`,
      [workspaceId, DEMO.storeId, DEMO.environmentName],
    );
    const environmentId = environment.rows[0]?.id as string;
    for (const name of DEMO.robots) {
      await tx.query(
        `insert into robots (environment_id, name)
         select $1, $2 where not exists (select 1 from robots where environment_id = $1 and name = $2)`,
        [environmentId, name],
      );
    }
    const user = await tx.query<{ id: string }>(
      `insert into users (email, name) values ($1, 'Demo User')
       on conflict (email) do update set email = excluded.email returning id`,
      [DEMO.userEmail],
    );
    const userId = user.rows[0]?.id as string;
    await tx.query(
      `insert into memberships (workspace_id, user_id, role, status) values ($1, $2, 'admin', 'active')
       on conflict (workspace_id, user_id) do nothing`,
      [workspaceId, userId],
    );
    return { workspaceId, userId };
  });
  const partnerToken = await createToken(db, { kind: "partner", workspaceId: ids.workspaceId, label: "seed" });
  const userToken = await createToken(db, { kind: "user", userId: ids.userId, label: "seed" });
  return {
    workspace: { uuid: ids.workspaceId, slug: DEMO.workspaceSlug },
    storeId: DEMO.storeId,
    partnerToken,
    userToken,
  };
}
