import type { AgentCardInput } from "./schemas/agent-card-input.js";

/** A small agent card input for tests: one skill; `overrides` for what a test asserts on. */
export function cardInput(overrides: Partial<AgentCardInput> = {}): AgentCardInput {
  return {
    name: "Store robots",
    description: "Robots that carry out store operations",
    endpointUrl: "http://localhost:8080/api/v1/a2a",
    version: "1.0.0",
    skills: [{ id: "restock", name: "Restock", description: "Restock a shelf", tags: ["store"] }],
    ...overrides,
  };
}
