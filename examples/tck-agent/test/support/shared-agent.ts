import { afterAll, beforeAll } from "vitest";
import { startTckAgent, type TckAgent } from "../../src/tck-agent.ts";

export const TCK_TOKEN = "tck-test-token";

/** One conformance agent (every binding, on the embedded store) for a test file, closed after it. */
export function sharedTckAgent(): () => TckAgent {
  let agent: TckAgent | undefined;
  beforeAll(async () => {
    agent = await startTckAgent({ port: 0, token: TCK_TOKEN, grpcPort: 0 });
  }, 60_000); // PGlite's start and migrations, on a busy machine
  afterAll(async () => {
    await agent?.close();
  });
  return () => {
    if (!agent) throw new Error("the conformance agent has not started");
    return agent;
  };
}
