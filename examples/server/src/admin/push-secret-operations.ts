import { durationOption, UsageError } from "@a2a-partner/a2a-core/node-runtime";
import {
  currentSigningSecret,
  type Database,
  retireOldSigningSecrets,
  rotateSigningSecret,
  signingSecretsOf,
} from "@a2a-partner/postgres-store";
import { record, text, workspaceIdOf } from "./request-fields.ts";

/** How long a replaced secret keeps signing after `--rotate` unless told: receivers have a day to switch. */
export const DEFAULT_GRACE = "24h";

/** What `pnpm cli push-secret` prints (one JSON line): the secret to give the workspace's receivers. */
export interface PushSecretResult {
  workspace: string;
  /** The current secret (`whsec_…`): every notification is signed with it. */
  secret: string;
  created: string;
  /** Whether this command made it (none existed, or `--rotate`). */
  new: boolean;
  /** The older secrets that still sign too, until their `retiresAt` (never their values). */
  retiring: Array<{ created: string; retiresAt: string }>;
}

/**
 * `push-secret --workspace <slug> [--rotate] [--grace <duration>] [--retire-old]`: prints the workspace's
 * current signing secret, creating one if it has none; `--rotate` makes a new one and the old one keeps
 * signing for the grace (default 24 h; `0` stops it at once, for a secret that leaked); `--retire-old`
 * stops every replaced secret still in its grace at once (after the rotation, with `--rotate`).
 */
export async function pushSecret(db: Database, input: unknown): Promise<PushSecretResult> {
  const request = record(input);
  const slug = text(request.workspace, "--workspace");
  const rotate = request.rotate === true;
  if (request.grace !== undefined && !rotate) throw new UsageError("--grace goes with --rotate");
  const graceSeconds = rotate ? graceOf(request.grace ?? DEFAULT_GRACE) : 0;
  const workspaceId = await workspaceIdOf(db, slug);
  const current = rotate
    ? { ...(await rotateSigningSecret(db, workspaceId, graceSeconds)), created: true }
    : await currentSigningSecret(db, workspaceId);
  if (request.retireOld === true) await retireOldSigningSecrets(db, workspaceId);
  const retiring = (await signingSecretsOf(db, workspaceId)).flatMap(({ secret, createdAt, retiresAt }) =>
    secret !== current.secret && retiresAt
      ? [{ created: createdAt.toISOString(), retiresAt: retiresAt.toISOString() }]
      : [],
  );
  return {
    workspace: slug,
    secret: current.secret,
    created: current.createdAt.toISOString(),
    new: current.created,
    retiring,
  };
}

function graceOf(value: unknown): number {
  if (value === "0") return 0;
  return durationOption(String(value), "--grace", "24h, or 0 to stop the old secret at once");
}
