import { z } from "zod";
import { SUPPORTED_PROTOCOL_VERSIONS } from "../dialect/protocol-version.js";

// What an agent card says, whichever dialect renders it: the embedder's `AgentCardInput` and the parts
// both cards share. The v1.0 card is `agent-card.ts`, the v0.3 card `../v0_3/agent-card.ts`.

export const AgentSkill = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  tags: z.array(z.string()),
  examples: z.array(z.string()).optional(),
  inputModes: z.array(z.string()).optional(),
  outputModes: z.array(z.string()).optional(),
});
export type AgentSkill = z.infer<typeof AgentSkill>;

export const AgentProvider = z.object({ organization: z.string(), url: z.string() });

/** An interface's address: an absolute URL, or (gRPC, specification v1.0.2) `host:port`. */
export const InterfaceUrl = z
  .string()
  .refine((value) => URL.canParse(value) || /^(?:\[[0-9a-fA-F:.]+\]|[\w.-]+):\d{1,5}$/.test(value), {
    message: "must be an absolute URL, or host:port for gRPC",
  });

/** An entry of a card's `supportedInterfaces` (v1.0's list, carried by the v0.3 card too). */
export const AgentInterface = z.object({ url: InterfaceUrl, protocolBinding: z.string(), protocolVersion: z.string() });

export interface AgentCardInput {
  name: string;
  description: string;
  /** The absolute URL of the JSON-RPC endpoint, e.g. `http://localhost:8080/api/v1/a2a`. */
  endpointUrl: string;
  /** The agent's own version. */
  version: string;
  skills: AgentSkill[];
  provider?: { organization: string; url: string };
  documentationUrl?: string;
  /**
   * The absolute base URL of the HTTP+JSON binding (A2A v1.0), listed after JSON-RPC when given. The
   * handler answers it below the JSON-RPC path (`{endpointUrl}/message:stream`, …), so this is usually
   * `endpointUrl` itself; leave it out if your server routes only the JSON-RPC path to the handler.
   */
  httpJsonUrl?: string;
  /**
   * The `host:port` of the gRPC binding (A2A v1.0, `@a2a-partner/a2a-core/grpc`), listed last when given:
   * the address a gRPC client dials (specification v1.0.2 gives gRPC interfaces that form, not a URL).
   */
  grpcUrl?: string;
  /**
   * Whether the endpoint takes push notification configs and delivers to them (`capabilities.pushNotifications`).
   * Pass the handler's own `pushNotifications`, so the card says exactly what the handler does. Default `false`.
   */
  pushNotifications?: boolean;
  /**
   * Whether authenticated callers get an extended card from GetExtendedAgentCard
   * (`capabilities.extendedAgentCard`, v0.3 `supportsAuthenticatedExtendedCard`). Pass whether the handler
   * was given `extendedAgentCard`. Default `false`.
   */
  extendedAgentCard?: boolean;
}

/**
 * The JSON-RPC endpoint speaks both dialects, chosen per request by `A2A-Version` (docs/interop.md), so
 * every card lists it once per version, newest first (the URL is the same: only the header differs);
 * then the HTTP+JSON binding and the gRPC one, v1.0 only. Clients that take the first binding they know keep JSON-RPC.
 */
export function interfaces(input: AgentCardInput) {
  const jsonRpc = [...SUPPORTED_PROTOCOL_VERSIONS]
    .reverse()
    .map((protocolVersion) => ({ url: input.endpointUrl, protocolBinding: "JSONRPC", protocolVersion }));
  const httpJson =
    input.httpJsonUrl === undefined
      ? []
      : [{ url: input.httpJsonUrl, protocolBinding: "HTTP+JSON", protocolVersion: "1.0" }];
  const grpc =
    input.grpcUrl === undefined ? [] : [{ url: input.grpcUrl, protocolBinding: "GRPC", protocolVersion: "1.0" }];
  return [...jsonRpc, ...httpJson, ...grpc];
}

// Conformance kits flag words such as "token" or "key" in a public card as leaked secrets, so the
// description names the scheme without them.
export const BEARER_DESCRIPTION = "HTTP Bearer authentication, scoped to one workspace (partner access)";

/** The HTTP Bearer scheme's fields, in either card (v0.3 adds `type: "http"`, v1.0 nests them). */
export const BEARER_SCHEME_FIELDS = {
  scheme: z.string(),
  bearerFormat: z.string().optional(),
  description: z.string().optional(),
};

/** The fields both cards end their shared part with: the media types and the skills. */
export const MODES_AND_SKILLS_FIELDS = {
  defaultInputModes: z.array(z.string()),
  defaultOutputModes: z.array(z.string()),
  skills: z.array(AgentSkill),
};

/** What both cards say of the media types the agent takes and answers, and its skills. */
export function modesAndSkills(input: AgentCardInput) {
  return {
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain", "application/json"],
    skills: input.skills,
  };
}
