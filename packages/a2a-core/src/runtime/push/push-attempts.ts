import type { Logger } from "../../ports/logger.js";
import type { PushDelivery } from "../../ports/push-deliveries.js";
import type { PushMeasurements } from "../../telemetry/push-telemetry.js";
import { type PushPost, pushPostOf } from "./push-post.js";
import { buildPushRequest, type PushRequest } from "./push-request.js";
import { type AttemptOutcome, sendAttempt } from "./send-attempt.js";
import { webhookIdOf } from "./webhook-id.js";

export interface PushAttemptsOptions {
  send: typeof fetch;
  /** `undefined`: the embedder gave none, so nothing can be signed: deliveries wait unsent (never sent unsigned). */
  signingSecrets: ((workspaceId: string) => Promise<readonly string[]>) | undefined;
  logger: Logger;
  telemetry: PushMeasurements;
  now: () => Date;
  attemptTimeoutMs: number;
}

/**
 * One attempt of a delivery: the workspace's signing secrets, the signed request, the POST. A workspace
 * without a secret is an operator's error, not a reason to send unsigned: its deliveries fail (reason
 * `signing`) and are retried like any failure until a secret exists or the horizon passes, and the
 * workspace is logged once (again after it had a secret and lost it).
 */
export class PushAttempts {
  private readonly unsignedWorkspaces = new Set<string>();
  private readonly post: PushPost;

  constructor(
    private readonly options: PushAttemptsOptions,
    private readonly abandoned: AbortSignal,
  ) {
    this.post = pushPostOf(options.send);
  }

  async attempt(delivery: PushDelivery): Promise<AttemptOutcome> {
    const request = await this.request(delivery);
    if ("kind" in request) return request;
    this.options.telemetry.attempted();
    return sendAttempt(this.post, request, this.options.attemptTimeoutMs, this.abandoned, this.options.now);
  }

  private async request(delivery: PushDelivery): Promise<PushRequest | Extract<AttemptOutcome, { kind: "failed" }>> {
    const { logger } = this.options;
    const workspaceId = delivery.workspaceId;
    let secrets: readonly string[];
    try {
      secrets = (await this.options.signingSecrets?.(workspaceId)) ?? [];
    } catch (error) {
      logger.error({ workspaceId, err: error }, "push: the workspace's signing secrets could not be read");
      return { kind: "failed", reason: "signing", error: "signing secrets unavailable" };
    }
    if (secrets.length === 0) {
      if (!this.unsignedWorkspaces.has(workspaceId)) {
        this.unsignedWorkspaces.add(workspaceId);
        const why = this.options.signingSecrets
          ? "the workspace has no signing secret"
          : "push.signingSecrets is not set";
        logger.warn(
          { workspaceId },
          `push: ${why}; the workspace's deliveries wait unsent (retried until the horizon)`,
        );
      }
      return { kind: "failed", reason: "signing", error: "the workspace has no signing secret" };
    }
    this.unsignedWorkspaces.delete(workspaceId);
    const id = await webhookIdOf(delivery.event.taskId, delivery.event.seq, delivery.config.id);
    try {
      return buildPushRequest(delivery, id, secrets, this.options.now());
    } catch {
      // The error could quote the secret: say only which workspace.
      logger.error({ workspaceId }, "push: a signing secret of the workspace is not a valid whsec_ key");
      return { kind: "failed", reason: "signing", error: "invalid signing secret" };
    }
  }
}
