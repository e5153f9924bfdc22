// Runs the A2A conformance kit (a2aproject/a2a-tck, category "mandatory") against a freshly started
// reference server and prints its summary. docs/interop.md lists the results and explains each failure
// the contract forces. Usage: `pnpm conformance` (builds first). Environment:
//   A2A_TCK_DIR     a checkout of the kit (default: .tck/a2a-tck, cloned at the pinned commit if missing)
//   A2A_TCK_REPO    where to clone it from (default: https://github.com/a2aproject/a2a-tck.git)
//   A2A_TCK_PYTHON  the Python with the kit's dependencies (default: /usr/bin/python3, else python3)
//   A2A_TCK_CATEGORY  the kit's category (default: mandatory)
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

/** The kit's commit this project was last checked against (docs/interop.md has its results). */
const PINNED_COMMIT = "410ba92e1b264df895e1fe6eccfe22db7aeaab06";
const ROOT = resolve(import.meta.dirname, "..");
const CLI = join(ROOT, "examples/server/src/cli.ts");
/** The Debian packages that hold the kit's Python dependencies (it needs no pip). */
const DEBIAN_PACKAGES =
  "python3-pytest python3-pytest-asyncio python3-httpx python3-requests python3-dotenv python3-jsonschema " +
  "python3-responses python3-packaging python3-grpcio python3-protobuf python3-aiohttp";

function tckDirectory(): string {
  const given = process.env.A2A_TCK_DIR;
  if (given) return resolve(given);
  const dir = join(ROOT, ".tck/a2a-tck");
  if (!existsSync(dir)) {
    const repo = process.env.A2A_TCK_REPO ?? "https://github.com/a2aproject/a2a-tck.git";
    console.log(`cloning the A2A TCK from ${repo} into ${dir}`);
    execFileSync("git", ["clone", "--quiet", repo, dir], { stdio: "inherit" });
    execFileSync("git", ["-C", dir, "checkout", "--quiet", PINNED_COMMIT], { stdio: "inherit" });
  }
  return dir;
}

function python(): string {
  const chosen = process.env.A2A_TCK_PYTHON ?? (existsSync("/usr/bin/python3") ? "/usr/bin/python3" : "python3");
  try {
    execFileSync(chosen, [
      "-c",
      "import pytest, pytest_asyncio, httpx, requests, dotenv, jsonschema, responses, packaging, grpc, google.protobuf, aiohttp",
    ]);
  } catch {
    throw new Error(`${chosen} lacks the kit's dependencies; on Debian: apt-get install -y ${DEBIAN_PACKAGES}`);
  }
  return chosen;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const address = server.address();
  await new Promise<void>((done) => server.close(() => done()));
  if (!address || typeof address === "string") throw new Error("no free port");
  return address.port;
}

async function waitForHealth(url: string, server: ChildProcess): Promise<void> {
  for (let attempt = 0; attempt < 300; attempt++) {
    if (server.exitCode !== null) throw new Error(`the server exited (${server.exitCode})`);
    try {
      if ((await fetch(`${url}/healthz`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((done) => setTimeout(done, 200));
  }
  throw new Error("the server did not become healthy in 60 s");
}

async function main(): Promise<number> {
  const tck = tckDirectory();
  const interpreter = python();
  const commit = execFileSync("git", ["-C", tck, "rev-parse", "HEAD"], { encoding: "utf8" }).trim();
  if (commit !== PINNED_COMMIT) console.warn(`note: the TCK is at ${commit}, not the pinned ${PINNED_COMMIT}`);

  // A fresh embedded database, seeded: the kit's bearer token is the demo workspace's partner token.
  const dataDir = await mkdtemp(join(tmpdir(), "a2a-conformance-"));
  const port = await freePort();
  const baseUrl = `http://localhost:${port}`;
  const env = {
    ...process.env,
    DATABASE_URL: "",
    DATA_DIR: dataDir,
    PORT: String(port),
    HOST: "127.0.0.1",
    PUBLIC_URL: baseUrl,
    LOG_LEVEL: "warn",
    ROBOT_STEP_MS: "50",
  };
  const seeded = JSON.parse(execFileSync(process.execPath, [CLI, "seed"], { env, encoding: "utf8" })) as {
    partnerToken: string;
  };
  const server = spawn(process.execPath, [CLI, "serve"], { env, stdio: ["ignore", "ignore", "inherit"] });
  try {
    await waitForHealth(`http://127.0.0.1:${port}`, server);
    console.log(`reference server at ${baseUrl}; running the A2A TCK (${commit.slice(0, 7)})`);
    const kit = spawn(
      interpreter,
      ["run_tck.py", "--sut-url", baseUrl, "--category", process.env.A2A_TCK_CATEGORY ?? "mandatory"],
      {
        cwd: tck,
        env: { ...process.env, A2A_AUTH_TYPE: "bearer", A2A_AUTH_TOKEN: seeded.partnerToken },
        stdio: "inherit",
      },
    );
    return await new Promise<number>((done) => kit.on("exit", (code) => done(code ?? 1)));
  } finally {
    server.kill("SIGTERM");
    await new Promise((done) => server.once("exit", done));
    await rm(dataDir, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
