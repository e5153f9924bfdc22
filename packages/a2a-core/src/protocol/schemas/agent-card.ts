import { z } from "zod";
import { AgentCardSignature } from "../card/card-signature.js";
import { requestedProtocolVersion } from "../dialect/protocol-version.js";
import { type RequestHeaders, readHeaders } from "../header-reader.js";
import { AgentCardV03, buildAgentCardV03 } from "../v0_3/agent-card.js";
import {
  type AgentCardInput,
  AgentInterface,
  AgentProvider,
  BEARER_DESCRIPTION,
  BEARER_SCHEME_FIELDS,
  interfaces,
  MODES_AND_SKILLS_FIELDS,
  modesAndSkills,
} from "./agent-card-input.js";

/** The agent card in the A2A v1.0 shape, served when the request carries `A2A-Version: 1.0`. */
export const AgentCardV1 = z.object({
  name: z.string(),
  description: z.string(),
  supportedInterfaces: z.array(AgentInterface.extend({ tenant: z.string().optional() })).min(1),
  provider: AgentProvider.optional(),
  version: z.string(),
  documentationUrl: z.string().optional(),
  capabilities: z.object({
    streaming: z.boolean(),
    pushNotifications: z.boolean().optional(),
    extendedAgentCard: z.boolean().optional(),
  }),
  securitySchemes: z.record(z.string(), z.object({ httpAuthSecurityScheme: z.object(BEARER_SCHEME_FIELDS) })),
  securityRequirements: z.array(z.object({ schemes: z.record(z.string(), z.object({ list: z.array(z.string()) })) })),
  ...MODES_AND_SKILLS_FIELDS,
  /** JWS signatures over the canonical card (`signAgentCard`). */
  signatures: z.array(AgentCardSignature).optional(),
});
export type AgentCardV1 = z.infer<typeof AgentCardV1>;

/** Either dialect of the card, as a client may receive it. */
export const AgentCard = z.union([AgentCardV03, AgentCardV1]);
export type AgentCard = z.infer<typeof AgentCard>;

/** Builds the v1.0 card for an endpoint. */
export function buildAgentCardV1(input: AgentCardInput): AgentCardV1 {
  return {
    name: input.name,
    description: input.description,
    supportedInterfaces: interfaces(input),
    ...(input.provider ? { provider: input.provider } : {}),
    version: input.version,
    ...(input.documentationUrl ? { documentationUrl: input.documentationUrl } : {}),
    capabilities: {
      streaming: true,
      pushNotifications: input.pushNotifications ?? false,
      extendedAgentCard: input.extendedAgentCard ?? false,
    },
    securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: "Bearer", description: BEARER_DESCRIPTION } } },
    securityRequirements: [{ schemes: { bearer: { list: [] } } }],
    ...modesAndSkills(input),
  };
}

/**
 * Picks the card dialect for a request: v1.0 when it asks for 1.0 (`A2A-Version` header or query
 * parameter), else v0.3. Discovery is lenient: a version this server does not know gets the default card.
 * `headers`: a web `Headers`, Express's `req`, or node's `req.headers`; `url`: the request's URL, for
 * `?A2A-Version=`.
 */
export function agentCardForRequest(
  headers: RequestHeaders,
  input: AgentCardInput,
  url?: string,
): AgentCardV03 | AgentCardV1 {
  const asked = requestedProtocolVersion(readHeaders(headers), url);
  return asked.ok && asked.version === "1.0" ? buildAgentCardV1(input) : buildAgentCardV03(input);
}
