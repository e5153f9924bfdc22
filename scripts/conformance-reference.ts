// The reference server as `pnpm conformance` runs it (scripts/conformance.ts): a fresh embedded database,
// seeded, `store-001` the demo workspace's default Environment (the kit sends no storeId), its gRPC binding
// on, and in front of each binding a proxy that adds the seeded partner token to every request (the kit
// 1.0 sends no credential): HTTP here, gRPC in conformance-grpc-proxy.ts.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { startGrpcProxy } from "./conformance-grpc-proxy.ts";

const CLI = resolve(import.meta.dirname, "../examples/server/src/cli.ts");

export interface RunningTarget {
  url: string;
  stop(): Promise<void>;
}

export async function startReferenceServer(port: number, grpcPort: number): Promise<RunningTarget> {
  const dataDir = await mkdtemp(join(tmpdir(), "a2a-conformance-reference-"));
  // The proxy's URL is the server's public one: the card names it, so the kit's requests go through it.
  const proxy = createServer();
  await new Promise<void>((done) => proxy.listen(0, "127.0.0.1", done));
  const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  const env = {
    ...process.env,
    DATABASE_URL: "",
    DATA_DIR: dataDir,
    PORT: String(port),
    HOST: "127.0.0.1",
    PUBLIC_URL: url,
    LOG_LEVEL: "warn",
    ROBOT_STEP_MS: "50",
    RATE_LIMIT_PER_SECOND: "0",
  };
  const { partnerToken } = JSON.parse(execFileSync(process.execPath, [CLI, "seed"], { env, encoding: "utf8" })) as {
    partnerToken: string;
  };
  execFileSync(process.execPath, [CLI, "environment", "default", "--workspace", "demo", "store-001"], {
    env,
    stdio: ["ignore", "ignore", "inherit"],
  });
  // The card names the gRPC proxy's address, as it names the HTTP proxy's URL.
  const grpcProxy = await startGrpcProxy(`127.0.0.1:${grpcPort}`, partnerToken);
  const server: ChildProcess = spawn(process.execPath, [CLI, "serve"], {
    env: { ...env, GRPC_PORT: String(grpcPort), GRPC_PUBLIC_ADDRESS: grpcProxy.address },
    stdio: ["ignore", "ignore", "inherit"],
  });
  proxy.on("request", (req, res) => {
    const headers = { ...req.headers, authorization: req.headers.authorization ?? `Bearer ${partnerToken}` };
    const upstream = request({ host: "127.0.0.1", port, method: req.method, path: req.url, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on("error", () => res.destroy());
    req.pipe(upstream);
  });
  for (let attempt = 0; ; attempt++) {
    if (server.exitCode !== null) throw new Error(`the reference server exited (${server.exitCode})`);
    if (attempt > 300) throw new Error("the reference server did not become healthy in 60 s");
    const healthy = await fetch(`http://127.0.0.1:${port}/healthz`).then(
      (res) => res.ok,
      () => false,
    );
    if (healthy) break;
    await new Promise((done) => setTimeout(done, 200));
  }
  return {
    url,
    async stop() {
      proxy.closeAllConnections();
      proxy.close();
      await grpcProxy.stop();
      server.kill("SIGTERM");
      await new Promise((done) => server.once("exit", done));
      // The data directory and the control socket's directory the server made beside it.
      await Promise.all([dataDir, `${dataDir}.run`].map((dir) => rm(dir, { recursive: true, force: true })));
    },
  };
}
