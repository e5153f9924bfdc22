import type { AgentCardInput } from "@a2a-partner/a2a-core";

export const A2A_PATH = "/api/v1/a2a";

/**
 * What the discovery document says about this server; the dialect is chosen per request.
 * `pushNotifications`: the handler's own (`A2AHandler.pushNotifications`), so the card never claims more.
 */
export function agentCardInput(
  publicUrl: string,
  options: { pushNotifications?: boolean; grpcUrl?: string } = {},
): AgentCardInput {
  return {
    name: "Store Operations Robots",
    description:
      'Send a store-operations task in plain language (for example "restock aisle 5"); robots in the chosen ' +
      "Environment (params.metadata.storeId) carry it out and report progress over Server-Sent Events.",
    endpointUrl: `${publicUrl}${A2A_PATH}`,
    // The same handler answers the HTTP+JSON routes below the JSON-RPC path.
    httpJsonUrl: `${publicUrl}${A2A_PATH}`,
    // GRPC_PORT: the gRPC binding, listed as host:port (GRPC_PUBLIC_ADDRESS).
    ...(options.grpcUrl ? { grpcUrl: options.grpcUrl } : {}),
    version: "0.1.0",
    pushNotifications: options.pushNotifications ?? false,
    provider: { organization: "A2A partner-task reference server", url: publicUrl },
    skills: [
      {
        id: "restock-shelf",
        name: "Restock a shelf",
        description: "Fetch stock from the back room and restock a shelf or aisle.",
        tags: ["store", "restock", "robots"],
        examples: ["Restock aisle 5", "Refill the shelf in bay 12 with water"],
      },
      {
        id: "clean-spill",
        name: "Clean a spill",
        description: "Cordon off, clean and verify a spill on the floor.",
        tags: ["store", "cleaning", "robots"],
        examples: ["Clean the spill in aisle 3"],
      },
      {
        id: "inventory-count",
        name: "Count inventory",
        description: "Scan shelves and reconcile inventory counts.",
        tags: ["store", "inventory", "robots"],
        examples: ["Count inventory in aisle 7"],
      },
      {
        id: "fetch-item",
        name: "Fetch an item",
        description: "Locate, pick and deliver an item.",
        tags: ["store", "delivery", "robots"],
        examples: ["Bring a pallet of flour to dock 2"],
      },
    ],
  };
}
