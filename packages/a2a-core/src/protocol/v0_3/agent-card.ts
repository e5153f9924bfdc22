import { z } from "zod";
import { AgentCardSignature } from "../card/card-signature.js";
// The parts both cards share.
import * as shared from "../schemas/agent-card-input.js";

/** The agent card as A2A v0.3 peers read it (the default card; docs/protocol.md, Agent card). */
export const AgentCardV03 = z.object({
  protocolVersion: z.string(),
  name: z.string(),
  description: z.string(),
  /** The JSON-RPC endpoint. */
  url: z.url(),
  preferredTransport: z.literal("JSONRPC"),
  version: z.string(),
  provider: shared.AgentProvider.optional(),
  documentationUrl: z.string().optional(),
  capabilities: z.object({
    streaming: z.boolean(),
    pushNotifications: z.boolean().optional(),
    stateTransitionHistory: z.boolean().optional(),
  }),
  securitySchemes: z.record(z.string(), z.object({ type: z.literal("http"), ...shared.BEARER_SCHEME_FIELDS })),
  security: z.array(z.record(z.string(), z.array(z.string()))),
  ...shared.MODES_AND_SKILLS_FIELDS,
  supportsAuthenticatedExtendedCard: z.boolean().optional(),
  /** The v1.0 interface list, also carried here so peers of either version find the endpoint. */
  supportedInterfaces: z.array(shared.AgentInterface).optional(),
  /** JWS signatures over the canonical card (`signAgentCard`). */
  signatures: z.array(AgentCardSignature).optional(),
});
export type AgentCardV03 = z.infer<typeof AgentCardV03>;

/** Builds the v0.3 card (default) for an endpoint. */
export function buildAgentCardV03(input: shared.AgentCardInput): AgentCardV03 {
  return {
    protocolVersion: "0.3.0",
    name: input.name,
    description: input.description,
    url: input.endpointUrl,
    preferredTransport: "JSONRPC",
    version: input.version,
    ...(input.provider ? { provider: input.provider } : {}),
    ...(input.documentationUrl ? { documentationUrl: input.documentationUrl } : {}),
    capabilities: {
      streaming: true,
      pushNotifications: input.pushNotifications ?? false,
      stateTransitionHistory: false,
    },
    securitySchemes: { bearer: { type: "http", scheme: "bearer", description: shared.BEARER_DESCRIPTION } },
    security: [{ bearer: [] }],
    ...shared.modesAndSkills(input),
    supportsAuthenticatedExtendedCard: input.extendedAgentCard ?? false,
    supportedInterfaces: shared.interfaces(input),
  };
}
