import { EventMetricsResponse } from "@a2a-partner/metrics-core";
import type { Database } from "@a2a-partner/postgres-store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createToken, hashToken } from "../src/auth/tokens.ts";
import { planWorkflow } from "../src/fleet/plan-workflow.ts";
import { type Backend, createTestDatabase, postgresAvailable, type TestDatabase } from "./support/backends.ts";
import { envelope, post, readFrames, startParams } from "./support/rpc.ts";
import { startTestServer, type TestServer } from "./support/test-server.ts";

// Under CI=true postgresAvailable() is true, so an unreachable PostgreSQL fails this file instead of skipping.
const backends: Backend[] = ["pglite", ...((await postgresAvailable()) ? (["postgres"] as const) : [])];

/** A user with a session token and, optionally, a relation to one workspace. */
async function userToken(
  db: Database,
  email: string,
  relation: { workspaceId: string; membership?: "active" | "inactive" | "invited"; aclRole?: string } | null,
): Promise<string> {
  const { rows } = await db.query<{ id: string }>("insert into users (email) values ($1) returning id", [email]);
  const userId = rows[0]?.id as string;
  if (relation?.membership) {
    await db.query("insert into memberships (workspace_id, user_id, role, status) values ($1, $2, 'member', $3)", [
      relation.workspaceId,
      userId,
      relation.membership,
    ]);
  }
  if (relation?.aclRole) {
    await db.query("insert into workspace_acl (workspace_id, user_id, role) values ($1, $2, $3)", [
      relation.workspaceId,
      userId,
      relation.aclRole,
    ]);
  }
  return createToken(db, { kind: "user", userId });
}

async function createWorkspace(db: Database, slug: string, visibility: "private" | "public"): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    "insert into workspaces (slug, name, visibility) values ($1, $1, $2) returning id",
    [slug, visibility],
  );
  return rows[0]?.id as string;
}

/** A few records at known instants, for exact expectations; the same records go into a noise workspace. */
async function insertKnownRecords(db: Database, workspaceId: string) {
  const workflow = async (name: string) =>
    (
      await db.query<{ id: string }>("insert into workflows (workspace_id, name) values ($1, $2) returning id", [
        workspaceId,
        name,
      ])
    ).rows[0]?.id as string;
  const pick = await workflow("pick-and-pack");
  const restock = await workflow("restock-shelf");
  const telemetry: [string, string][] = [
    ["robot.moved", "2026-02-28T23:59:59.999Z"],
    ["robot.moved", "2026-03-01T00:00:00.000Z"],
    ["battery.level", "2026-03-01T23:59:59.999Z"],
    ["robot.moved", "2026-03-02T12:00:00.000Z"],
    ["robot.moved", "2026-03-03T00:00:00.000Z"],
  ];
  for (const [type, at] of telemetry) {
    await db.query("insert into telemetry_events (workspace_id, event_type, occurred_at) values ($1, $2, $3)", [
      workspaceId,
      type,
      at,
    ]);
  }
  const execution = async (workflowId: string, at: string, nodes: number) => {
    const { rows } = await db.query<{ id: string }>(
      `insert into workflow_executions (workspace_id, workflow_id, status, started_at)
       values ($1, $2, 'completed', $3) returning id`,
      [workspaceId, workflowId, at],
    );
    for (let n = 0; n < nodes; n++) {
      await db.query(
        `insert into workflow_node_executions (workspace_id, workflow_execution_id, workflow_id, node_name, status, started_at)
         values ($1, $2, $3, $4, 'completed', $5::timestamptz + $6 * interval '1 minute')`,
        [workspaceId, rows[0]?.id, workflowId, `node-${n}`, at, n],
      );
    }
  };
  await execution(pick, "2026-03-01T10:00:00Z", 2);
  await execution(restock, "2026-03-02T11:00:00Z", 3);
  await execution(pick, "2026-03-02T23:58:00Z", 3); // its last node starts 2026-03-03T00:00Z
  for (const [type, at] of [
    ["obstacle_detected", "2026-03-01T05:00:00Z"],
    ["battery_low", "2026-03-02T06:00:00Z"],
    ["obstacle_detected", "2026-03-03T00:00:00Z"],
  ]) {
    await db.query("insert into alerts (workspace_id, alert_type, occurred_at) values ($1, $2, $3)", [
      workspaceId,
      type,
      at,
    ]);
  }
  return { pick, restock };
}

describe.each(backends)("GET /api/v1/metrics/events/{workspace} on %s", (backend) => {
  let database: TestDatabase;
  let server: TestServer;
  let db: Database;
  const ids = {} as { demo: string; open: string; fixed: string; uuidLike: string; uuidSlug: string };
  const tokens = {} as Record<
    "member" | "inactive" | "invited" | "acl" | "stranger" | "revoked" | "fixedMember" | "partner",
    string
  >;
  let workflows: { pick: string; restock: string };
  // A slug in UUID form whose text is no workspace's id (the other spelling of "looks like a UUID").
  const uuidShapedSlug = "6f1c2d3e-4b5a-4978-8a6b-5c4d3e2f1a0b";
  const uuidLikeSlug = "0f8fad5b-d9cb-469f-a165-70867728950z"; // one digit is not hex

  beforeAll(async () => {
    database = await createTestDatabase(backend);
    db = database.db;
    server = await startTestServer(db);
    ids.demo = server.seeded.workspace.uuid;
    tokens.member = server.seeded.userToken;
    tokens.partner = server.seeded.partnerToken;
    tokens.inactive = await userToken(db, "inactive@example.com", { workspaceId: ids.demo, membership: "inactive" });
    tokens.invited = await userToken(db, "invited@example.com", { workspaceId: ids.demo, membership: "invited" });
    tokens.acl = await userToken(db, "auditor@example.com", { workspaceId: ids.demo, aclRole: "viewer" });
    tokens.stranger = await userToken(db, "stranger@example.com", null);
    tokens.revoked = await userToken(db, "revoked@example.com", { workspaceId: ids.demo, membership: "active" });
    await db.query("update api_tokens set revoked_at = now() where token_hash = $1", [hashToken(tokens.revoked)]);

    ids.open = await createWorkspace(db, "open-data", "public");
    ids.fixed = await createWorkspace(db, "fixed", "private");
    ids.uuidLike = await createWorkspace(db, uuidLikeSlug, "private");
    ids.uuidSlug = await createWorkspace(db, uuidShapedSlug, "private");
    tokens.fixedMember = await userToken(db, "fixed@example.com", { workspaceId: ids.fixed, membership: "active" });
    for (const workspaceId of [ids.uuidLike, ids.uuidSlug]) {
      await db.query(
        "insert into memberships (workspace_id, user_id, role, status) select $1, user_id, 'member', 'active' from memberships where workspace_id = $2",
        [workspaceId, ids.fixed],
      );
    }
    workflows = await insertKnownRecords(db, ids.fixed);
    // Noise: the same records in other workspaces must never show up in "fixed".
    const other = (await db.query<{ id: string }>("select id from workspaces where slug = 'other-co'")).rows[0]?.id;
    await insertKnownRecords(db, other as string);
    await insertKnownRecords(db, ids.open);
  });
  afterAll(async () => {
    await server?.stop();
    await database?.drop();
  });

  const get = (segment: string, token: string | null, query = "", headers: Record<string, string> = {}) =>
    fetch(`${server.url}/api/v1/metrics/events/${segment}${query}`, {
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
    });

  describe("access", () => {
    it.each([
      ["an active member", "member", "demo", 200],
      ["an inactive member", "inactive", "demo", 404],
      ["an invited member", "invited", "demo", 404],
      ["a user with an ACL role", "acl", "demo", 200],
      ["a stranger, on a public workspace", "stranger", "open", 200],
      ["a stranger, on a private workspace", "stranger", "demo", 404],
    ] as const)("%s (token %s, workspace %s) → %i", async (_who, token, workspace, status) => {
      for (const segment of [ids[workspace], workspace === "demo" ? "demo" : "open-data"]) {
        const res = await get(segment, tokens[token]);
        expect(res.status).toBe(status);
        if (status === 200) {
          const body = EventMetricsResponse.parse(await res.json());
          expect(body.workspace_uuid).toBe(ids[workspace]);
        } else {
          expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
        }
      }
    });

    it("answers 403 problem+json for a partner token, even on its own workspace", async () => {
      const res = await get(ids.demo, tokens.partner);
      expect(res.status).toBe(403);
      expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
      expect(await res.json()).toMatchObject({ type: "about:blank", title: "Forbidden", status: 403 });
    });

    it.each([
      ["no Authorization header", {}],
      ["an unknown token", { authorization: "Bearer a2a_u_not-a-real-token" }],
      ["another scheme", { authorization: `Basic ${Buffer.from("demo:demo").toString("base64")}` }],
      ["an empty bearer", { authorization: "Bearer " }],
    ])("answers 401 with WWW-Authenticate: Bearer for %s", async (_name, headers) => {
      const res = await get(ids.demo, null, "", headers);
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toMatch(/^Bearer\b/);
      expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
      const body = await res.json();
      expect(body).toMatchObject({ type: "about:blank", title: "Unauthorized", status: 401 });
      expect(typeof body.detail).toBe("string");
    });

    it("answers 401 for a revoked token that worked before revocation", async () => {
      const res = await get("demo", tokens.revoked);
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toMatch(/^Bearer\b/);
    });

    it("checks the credential before anything else: no token and a bad window is 401, not 400", async () => {
      expect((await get("no-such-workspace", null, "?start_timestamp=garbage")).status).toBe(401);
    });

    it("gives identical 404s for an unknown workspace and one the caller cannot read", async () => {
      const responses = await Promise.all([
        get(crypto.randomUUID(), tokens.stranger),
        get("no-such-workspace", tokens.stranger),
        get(ids.demo, tokens.stranger),
        get("demo", tokens.stranger),
        get("demo", tokens.inactive),
      ]);
      const bodies = await Promise.all(responses.map((r) => r.text()));
      for (const res of responses) {
        expect(res.status).toBe(404);
        expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
      }
      expect(new Set(bodies).size).toBe(1);
      expect(JSON.parse(bodies[0] as string)).toMatchObject({ type: "about:blank", title: "Not Found", status: 404 });
    });

    it("answers a path without the workspace with 404 problem+json that says the workspace is missing", async () => {
      for (const path of ["/api/v1/metrics/events", "/api/v1/metrics/events/"]) {
        const res = await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${tokens.member}` } });
        expect(res.status, path).toBe(404);
        expect(res.headers.get("content-type"), path).toMatch(/^application\/problem\+json/);
        const body = await res.json();
        expect(body, path).toMatchObject({ title: "Not Found", status: 404, parameter: "workspace" });
        expect(body.detail, path).toMatch(/workspace is missing.*\/api\/v1\/metrics\/events\/\{workspace\}/);
      }
    });

    it("answers 404, not an error, for a segment with a NUL byte or an over-long slug", async () => {
      expect((await get("demo%00", tokens.member)).status).toBe(404);
      expect((await get("x".repeat(4000), tokens.member)).status).toBe(404);
    });
  });

  it("limits each caller's rate: 429 problem+json with Retry-After, other callers unaffected", async () => {
    const limited = await startTestServer(db, { metricsRateLimitPerSecond: 1 });
    try {
      const ask = (token: string) =>
        fetch(`${limited.url}/api/v1/metrics/events/fixed`, { headers: { authorization: `Bearer ${token}` } });
      const statuses = [];
      for (let i = 0; i < 3; i++) statuses.push((await ask(tokens.fixedMember)).status);
      expect(statuses).toEqual([200, 200, 429]); // a burst of twice the rate, then refused
      const refused = await ask(tokens.fixedMember);
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      expect(refused.headers.get("content-type")).toMatch(/^application\/problem\+json/);
      expect(await refused.json()).toMatchObject({ status: 429, title: "Too Many Requests" });
      expect((await ask(tokens.acl)).status).not.toBe(429);
    } finally {
      await limited.stop();
    }
  });

  describe("workspace segment", () => {
    it("gives the same body for the UUID (any case) and the slug", async () => {
      const bodies = await Promise.all(
        [ids.fixed, ids.fixed.toUpperCase(), "fixed"].map(async (segment) => {
          const res = await get(segment, tokens.fixedMember, "?start_timestamp=2026-03-01");
          expect(res.status).toBe(200);
          return res.json();
        }),
      );
      expect(bodies[0].workspace_uuid).toBe(ids.fixed);
      expect(bodies[1]).toEqual(bodies[0]);
      expect(bodies[2]).toEqual(bodies[0]);
    });

    it("looks a segment that only looks like a UUID up as a slug", async () => {
      const res = await get(uuidLikeSlug, tokens.fixedMember);
      expect(res.status).toBe(200);
      expect((await res.json()).workspace_uuid).toBe(ids.uuidLike);
    });

    it("resolves a UUID to the workspace with that id before any slug, whatever the caller may read", async () => {
      // A readable workspace whose slug is the id of an unreadable one must not answer for it.
      const shadow = await createWorkspace(db, ids.demo, "private");
      await db.query(
        "insert into memberships (workspace_id, user_id, role, status) select $1, user_id, 'member', 'active' from memberships where workspace_id = $2",
        [shadow, ids.fixed],
      );
      try {
        expect((await get(ids.demo, tokens.fixedMember)).status).toBe(404);
        expect((await (await get(ids.demo, tokens.member)).json()).workspace_uuid).toBe(ids.demo);
      } finally {
        await db.query("delete from workspaces where id = $1", [shadow]);
      }
    });

    it("falls back to the slug for a UUID that is no workspace's id", async () => {
      const res = await get(uuidShapedSlug, tokens.fixedMember);
      expect(res.status).toBe(200);
      expect((await res.json()).workspace_uuid).toBe(ids.uuidSlug);
    });
  });

  describe("counts", () => {
    it("counts exactly the workspace's records in [start, end), bucketed by UTC day", async () => {
      const res = await get(
        "fixed",
        tokens.fixedMember,
        "?start_timestamp=2026-03-01&end_timestamp=2026-03-03T00:00:00Z",
      );
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toMatch(/^application\/json/);
      expect(res.headers.get("cache-control")).toMatch(/no-store/);
      const { pick, restock } = workflows;
      // A workflow section's days: the 1st has only pick-and-pack, the 2nd both, in workflow-uuid order.
      const workflowDays = (firstPick: number, secondPick: number, secondRestock: number) => [
        { day: "2026-03-01", workflow_uuid: pick, workflow_name: "pick-and-pack", count: firstPick },
        ...[
          { day: "2026-03-02", workflow_uuid: pick, workflow_name: "pick-and-pack", count: secondPick },
          { day: "2026-03-02", workflow_uuid: restock, workflow_name: "restock-shelf", count: secondRestock },
        ].sort((a, b) => (a.workflow_uuid < b.workflow_uuid ? -1 : 1)),
      ];
      expect(await res.json()).toEqual({
        workspace_uuid: ids.fixed,
        window: { start: "2026-03-01T00:00:00.000Z", end: "2026-03-03T00:00:00.000Z" },
        telemetry: {
          total: 3,
          by_event_type: { "robot.moved": 2, "battery.level": 1 },
          by_day: [
            { day: "2026-03-01", event_type: "battery.level", count: 1 },
            { day: "2026-03-01", event_type: "robot.moved", count: 1 },
            { day: "2026-03-02", event_type: "robot.moved", count: 1 },
          ],
        },
        workflow_executions: {
          total: 3,
          by_workflow: { [pick]: { name: "pick-and-pack", count: 2 }, [restock]: { name: "restock-shelf", count: 1 } },
          by_day: workflowDays(1, 1, 1),
        },
        workflow_node_executions: {
          total: 7,
          by_workflow: { [pick]: { name: "pick-and-pack", count: 4 }, [restock]: { name: "restock-shelf", count: 3 } },
          by_day: workflowDays(2, 2, 3),
        },
        alerts: {
          total: 2,
          by_alert_type: { obstacle_detected: 1, battery_low: 1 },
          by_day: [
            { day: "2026-03-01", alert_type: "obstacle_detected", count: 1 },
            { day: "2026-03-02", alert_type: "battery_low", count: 1 },
          ],
        },
      });
    });

    it("reads offsets and unaligned bounds exactly, and an open window counts everything", async () => {
      const res = await get(
        "fixed",
        tokens.fixedMember,
        `?start_timestamp=${encodeURIComponent("2026-03-01T10:00:00+02:00")}&end_timestamp=2026-03-02T12:00:00.001Z`,
      );
      const body = await res.json();
      expect(body.window).toEqual({ start: "2026-03-01T08:00:00.000Z", end: "2026-03-02T12:00:00.001Z" });
      expect(body.telemetry.by_event_type).toEqual({ "battery.level": 1, "robot.moved": 1 });
      expect(body.workflow_executions.total).toBe(2);
      expect(body.alerts.by_alert_type).toEqual({ battery_low: 1 });

      const open = await (await get("fixed", tokens.fixedMember)).json();
      expect(open.window).toEqual({ start: null, end: null });
      expect([open.telemetry.total, open.workflow_executions.total, open.workflow_node_executions.total]).toEqual([
        5, 3, 8,
      ]);
      expect(open.alerts.total).toBe(3);
    });

    it("answers a window with no records with zero totals and empty maps", async () => {
      const res = await get("fixed", tokens.fixedMember, "?start_timestamp=2030-01-01&end_timestamp=2030-02-01");
      expect(res.status).toBe(200);
      const body = EventMetricsResponse.parse(await res.json());
      const empty = { total: 0, by_day: [] };
      expect(body.telemetry).toEqual({ ...empty, by_event_type: {} });
      expect(body.workflow_executions).toEqual({ ...empty, by_workflow: {} });
      expect(body.workflow_node_executions).toEqual({ ...empty, by_workflow: {} });
      expect(body.alerts).toEqual({ ...empty, by_alert_type: {} });
    });

    it("counts the records a real A2A task's robots write: its execution, node executions and telemetry", async () => {
      const read = async () => {
        const res = await get("demo", tokens.member);
        expect(res.status).toBe(200);
        return EventMetricsResponse.parse(await res.json());
      };
      const before = await read();
      const text = "Restock aisle 5";
      const frames = await readFrames(
        await post(
          server.a2aUrl,
          envelope("SendStreamingMessage", startParams(text, crypto.randomUUID())),
          tokens.partner,
        ),
      );
      expect(frames.at(-2)?.event).toBe("finished");
      expect(frames.at(-2)?.result.status.state).toBe("completed");
      const after = await read();

      const plan = planWorkflow(text);
      const progress = frames.filter((f) => f.event === "update" && f.result.kind === "status-update");
      expect(progress.map((f) => f.result.metadata.node)).toEqual(plan.nodes.map((n) => n.name));

      const workflowId = Object.entries(after.workflow_executions.by_workflow).find(
        ([, w]) => w.name === plan.workflowName,
      )?.[0] as string;
      expect(workflowId).toBeDefined();
      expect(after.workflow_executions.total - before.workflow_executions.total).toBe(1);
      expect(after.workflow_executions.by_workflow[workflowId]?.count).toBe(
        (before.workflow_executions.by_workflow[workflowId]?.count ?? 0) + 1,
      );
      expect(after.workflow_node_executions.by_workflow[workflowId]).toEqual({
        name: plan.workflowName,
        count: (before.workflow_node_executions.by_workflow[workflowId]?.count ?? 0) + plan.nodes.length,
      });
      // The execution is recorded as it ended, in the same commit as the task's last events.
      const execution = await db.query<{ status: string; finished: boolean }>(
        "select status, finished_at is not null as finished from workflow_executions where task_id = $1",
        [frames[0]?.result.id],
      );
      expect(execution.rows).toEqual([{ status: "completed", finished: true }]);

      // Each node reports its own telemetry plus a battery level.
      const expected = new Map<string, number>();
      for (const node of plan.nodes) {
        for (const type of [...node.telemetry, "battery.level"]) expected.set(type, (expected.get(type) ?? 0) + 1);
      }
      const delta = Object.fromEntries(
        Object.entries(after.telemetry.by_event_type)
          .map(([type, n]) => [type, n - (before.telemetry.by_event_type[type] ?? 0)] as const)
          .filter(([, n]) => n !== 0),
      );
      expect(delta).toEqual(Object.fromEntries(expected));
      const alerts = progress.filter((f) => f.result.metadata.alert).length;
      expect(after.alerts.total - before.alerts.total).toBe(alerts);

      // And they land on today's UTC day.
      const today = new Date().toISOString().slice(0, 10);
      expect(after.workflow_executions.by_day).toContainEqual(
        expect.objectContaining({ day: today, workflow_uuid: workflowId, workflow_name: plan.workflowName }),
      );
    });
  });

  describe("bad input", () => {
    it.each([
      ["garbage start", "?start_timestamp=yesterday", "start_timestamp"],
      ["garbage end", "?end_timestamp=2026-13-01", "end_timestamp"],
      ["an epoch number", "?start_timestamp=1767225600", "start_timestamp"],
      ["a repeated start", "?start_timestamp=2026-01-01&start_timestamp=2026-01-02", "start_timestamp"],
      ["a repeated end", "?end_timestamp=2026-01-01&end_timestamp=2026-01-01", "end_timestamp"],
      ["an empty end", "?end_timestamp=", "end_timestamp"],
      ["start after end", "?start_timestamp=2026-03-02&end_timestamp=2026-03-01", "start_timestamp"],
      ["start equal to end", "?start_timestamp=2026-03-01T00:00:00Z&end_timestamp=2026-03-01", "start_timestamp"],
    ])("answers 400 problem+json naming the parameter for %s", async (_name, query, parameter) => {
      const res = await get("fixed", tokens.fixedMember, query);
      expect(res.status).toBe(400);
      expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
      const body = await res.json();
      expect(body).toMatchObject({ type: "about:blank", title: "Bad Request", status: 400, parameter });
      expect(typeof body.detail).toBe("string");
      expect(body.detail).toContain(parameter);
    });

    it.each([
      ["a typo for start_timestamp", "?start=2026-11-20", "start"],
      ["an unknown one beside valid bounds", "?start_timestamp=2026-03-01&limit=10", "limit"],
    ])("answers 400 for %s, naming it and the accepted ones (never all-time data)", async (_name, query, name) => {
      const res = await get("fixed", tokens.fixedMember, query);
      expect(res.status).toBe(400);
      const body = await res.json();
      expect(body).toMatchObject({ status: 400, parameter: name, reason: "unknown_parameter" });
      expect(body.detail).toContain(`"${name}"`);
      expect(body.detail).toMatch(/start_timestamp and end_timestamp/);
    });

    it("answers 405 with Allow for other methods", async () => {
      const res = await fetch(`${server.url}/api/v1/metrics/events/fixed`, {
        method: "POST",
        headers: { authorization: `Bearer ${tokens.fixedMember}` },
      });
      expect(res.status).toBe(405);
      expect(res.headers.get("allow")).toBe("GET, HEAD");
    });
  });
});
