import { startTckAgent } from "./tck-agent.ts";

// `pnpm tck-agent`: PORT (default 9999), A2A_TOKEN (default "tck-token"; set and empty: no authentication,
// as the conformance kit 1.0 sends no credential), A2A_DATA_DIR (default: in memory), GRPC_PORT (unset: no
// gRPC binding).
const agent = await startTckAgent({
  port: Number(process.env.PORT ?? 9999),
  token: process.env.A2A_TOKEN ?? "tck-token",
  ...(process.env.A2A_DATA_DIR ? { dataDir: process.env.A2A_DATA_DIR } : {}),
  ...(process.env.GRPC_PORT ? { grpcPort: Number(process.env.GRPC_PORT) } : {}),
});
console.log(`TCK agent at ${agent.url} (card: ${agent.url}/.well-known/agent-card.json)`);
if (agent.grpcAddress) console.log(`gRPC binding at ${agent.grpcAddress}`);
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => void agent.close().then(() => process.exit(0)));
}
