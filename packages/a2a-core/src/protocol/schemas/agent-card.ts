import { z } from "zod";
import { AgentCardSignature } from "../card/card-signature.js";
import { requestedProtocolVersion, SUPPORTED_PROTOCOL_VERSIONS } from "../dialect/protocol-version.js";
import { type RequestHeaders, readHeaders } from "../header-reader.js";

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

const AgentProvider = z.object({ organization: z.string(), url: z.string() });

/** An interface's address: an absolute URL, or (gRPC, specification v1.0.2) `host:port`. */
const InterfaceUrl = z
  .string()
  .refine((value) => URL.canParse(value) || /^(?:\[[0-9a-fA-F:.]+\]|[\w.-]+):\d{1,5}$/.test(value), {
    message: "must be an absolute URL, or host:port for gRPC",
  });

/** The agent card as A2A v0.3 peers read it (the default card; docs/protocol.md, Agent card). */
export const AgentCardV03 = z.object({
  protocolVersion: z.string(),
  name: z.string(),
  description: z.string(),
  /** The JSON-RPC endpoint. */
  url: z.url(),
  preferredTransport: z.literal("JSONRPC"),
  version: z.string(),
  provider: AgentProvider.optional(),
  documentationUrl: z.string().optional(),
  capabilities: z.object({
    streaming: z.boolean(),
    pushNotifications: z.boolean().optional(),
    stateTransitionHistory: z.boolean().optional(),
  }),
  securitySchemes: z.record(
    z.string(),
    z.object({
      type: z.literal("http"),
      scheme: z.string(),
      bearerFormat: z.string().optional(),
      description: z.string().optional(),
    }),
  ),
  security: z.array(z.record(z.string(), z.array(z.string()))),
  defaultInputModes: z.array(z.string()),
  defaultOutputModes: z.array(z.string()),
  skills: z.array(AgentSkill),
  supportsAuthenticatedExtendedCard: z.boolean().optional(),
  /** The v1.0 interface list, also carried here so peers of either version find the endpoint. */
  supportedInterfaces: z
    .array(z.object({ url: InterfaceUrl, protocolBinding: z.string(), protocolVersion: z.string() }))
    .optional(),
  /** JWS signatures over the canonical card (`signAgentCard`). */
  signatures: z.array(AgentCardSignature).optional(),
});
export type AgentCardV03 = z.infer<typeof AgentCardV03>;

/** The agent card in the A2A v1.0 shape, served when the request carries `A2A-Version: 1.0`. */
export const AgentCardV1 = z.object({
  name: z.string(),
  description: z.string(),
  supportedInterfaces: z
    .array(
      z.object({
        url: InterfaceUrl,
        protocolBinding: z.string(),
        protocolVersion: z.string(),
        tenant: z.string().optional(),
      }),
    )
    .min(1),
  provider: AgentProvider.optional(),
  version: z.string(),
  documentationUrl: z.string().optional(),
  capabilities: z.object({
    streaming: z.boolean(),
    pushNotifications: z.boolean().optional(),
    extendedAgentCard: z.boolean().optional(),
  }),
  securitySchemes: z.record(
    z.string(),
    z.object({
      httpAuthSecurityScheme: z.object({
        scheme: z.string(),
        bearerFormat: z.string().optional(),
        description: z.string().optional(),
      }),
    }),
  ),
  securityRequirements: z.array(z.object({ schemes: z.record(z.string(), z.object({ list: z.array(z.string()) })) })),
  defaultInputModes: z.array(z.string()),
  defaultOutputModes: z.array(z.string()),
  skills: z.array(AgentSkill),
  /** JWS signatures over the canonical card (`signAgentCard`). */
  signatures: z.array(AgentCardSignature).optional(),
});
export type AgentCardV1 = z.infer<typeof AgentCardV1>;

/** Either dialect of the card, as a client may receive it. */
export const AgentCard = z.union([AgentCardV03, AgentCardV1]);
export type AgentCard = z.infer<typeof AgentCard>;

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
function interfaces(input: AgentCardInput) {
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
const BEARER_DESCRIPTION = "HTTP Bearer authentication, scoped to one workspace (partner access)";

/** Builds the v0.3 card (default) for an endpoint. */
export function buildAgentCardV03(input: AgentCardInput): AgentCardV03 {
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
    securitySchemes: { bearer: { type: "http", scheme: "bearer", description: BEARER_DESCRIPTION } },
    security: [{ bearer: [] }],
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain", "application/json"],
    skills: input.skills,
    supportsAuthenticatedExtendedCard: input.extendedAgentCard ?? false,
    supportedInterfaces: interfaces(input),
  };
}

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
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain", "application/json"],
    skills: input.skills,
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
