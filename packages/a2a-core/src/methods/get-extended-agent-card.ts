import { z } from "zod";
import { UnsupportedOperationError } from "../protocol/errors.js";
import type { AgentCardInput } from "../protocol/schemas/agent-card-input.js";
import type { UnaryMethod } from "./method.js";

/** v1.0 names a tenant; the token already names the workspace, so it is read and ignored. */
const GetExtendedAgentCardParams = z.object({ tenant: z.string().max(1024).optional() }).catchall(z.unknown());

/**
 * GetExtendedAgentCard (`agent/getAuthenticatedExtendedCard`): the card the embedder gives
 * (`extendedAgentCard` of the handler options) for the authenticated caller's workspace, in the
 * request's dialect. Admission has authenticated the caller already; without a card it is -32004.
 */
export const getExtendedAgentCard: UnaryMethod<typeof GetExtendedAgentCardParams, AgentCardInput> = {
  name: "GetExtendedAgentCard",
  streaming: false,
  params: GetExtendedAgentCardParams,
  async run(runtime, { caller }) {
    if (!runtime.extendedAgentCard) throw UnsupportedOperationError.forMethod("GetExtendedAgentCard");
    return { ...(await runtime.extendedAgentCard(caller.workspaceId)), extendedAgentCard: true };
  },
  render: (dialect, card) => dialect.agentCard(card),
};
