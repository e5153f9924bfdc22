// Runs the A2A conformance kit (a2aproject/a2a-tck) against a freshly started reference server: its four
// categories (mandatory, capabilities, quality, features) over every binding the card declares (JSON-RPC,
// HTTP+JSON), then prints, per category and binding, how many tests passed, how many failed because the
// contract forces it (CONTRACT_FORCED below), and every other failure or error by name.
// docs/interop.md keeps that table and explains each failure. Usage: `pnpm conformance` (builds first).
// Environment:
//   A2A_TCK_DIR     a checkout of the kit (default: .tck/a2a-tck, cloned at the pinned commit if missing)
//   A2A_TCK_REPO    where to clone it from (default: https://github.com/a2aproject/a2a-tck.git)
//   A2A_TCK_PYTHON  the Python with the kit's dependencies (default: /usr/bin/python3, else python3)
//   A2A_TCK_CATEGORY  one category instead of all four
//   A2A_TCK_TRANSPORTS  the bindings to run, comma-separated (default: jsonrpc,rest)
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
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

/** Each category: the kit's folder and marker expression (as its run_tck.py has them). */
const CATEGORIES: Record<string, { path: string; markers?: string }> = {
  mandatory: { path: "tests/mandatory/", markers: "mandatory or mandatory_protocol or mandatory_jsonrpc" },
  capabilities: { path: "tests/optional/capabilities/" },
  quality: { path: "tests/optional/quality/" },
  features: { path: "tests/optional/features/" },
};

/**
 * Failures the contract forces, by test name (a substring of pytest's node id): docs/contract.md answers
 * every SendMessage with -32004 UnsupportedOperationError, so a test that starts its task with
 * SendMessage, or expects something else of it, cannot pass. Each is explained in docs/interop.md.
 */
const CONTRACT_FORCED: readonly string[] = [
  "test_tasks_list_method.py",
  "test_message_send_method.py",
  "test_tasks_get_method.py",
  "test_tasks_cancel_method.py",
  "test_state_transitions.py::test_task_history_length",
  "test_a2a_v030_new_methods.py::test_core_method_mapping_compliance",
  "test_multi_transport_equivalence.py",
  "test_protocol_violations.py::test_duplicate_request_ids",
  "test_json_rpc_compliance.py::test_rejects_invalid_params",
  "test_json_rpc_compliance.py::test_rejects_invalid_json_rpc_requests[invalid_request4--32602]",
  // The optional categories' tests that send with SendMessage (their own task starts, or invalid input
  // they expect -32602 for, which SendMessage answers -32004 before reading it).
  "test_concurrency.py::test_parallel_requests",
  "test_concurrency.py::test_rapid_sequential_requests",
  "test_edge_cases.py::test_empty_arrays",
  "test_edge_cases.py::test_null_optional_fields",
  "test_edge_cases.py::test_unicode_and_special_chars",
  "test_task_state_quality.py::test_task_state_transitions",
  "test_task_state_quality.py::test_task_cancel_state_handling",
  "test_a2a_v030_method_enhancements.py::test_message_send_enhanced_parts_support",
  "test_a2a_v030_method_enhancements.py::test_method_parameter_validation_enhancements",
  "test_a2a_v030_method_enhancements.py::test_concurrent_method_calls",
  "test_message_send_capabilities.py",
  // Its fixture starts the task the push configs are for with SendMessage (push itself answers -32003).
  "test_push_notification_config_methods.py",
  "test_transport_specific_features.py::test_binary_data_handling",
  "test_invalid_business_logic.py::test_empty_message_parts",
  "test_invalid_business_logic.py::test_missing_required_message_fields",
];

interface Outcome {
  id: string;
  result: "passed" | "failed" | "skipped";
}

/** The test cases of a JUnit XML report (pytest's --junitxml), each passed, failed (or errored), or skipped. */
function junitOutcomes(file: string): Outcome[] {
  if (!existsSync(file)) return [];
  const xml = readFileSync(file, "utf8");
  const outcomes: Outcome[] = [];
  for (const match of xml.matchAll(/<testcase\b([^>]*?)(\/>|>([\s\S]*?)<\/testcase>)/g)) {
    const attrs = match[1] ?? "";
    const name = /\bname="([^"]*)"/.exec(attrs)?.[1] ?? "?";
    const classname = /\bclassname="([^"]*)"/.exec(attrs)?.[1] ?? "";
    const body = match[3] ?? "";
    const file = `${
      classname
        .replace(/\.[A-Z][^.]*$/, "")
        .split(".")
        .pop() ?? classname
    }.py`;
    const result = /<(failure|error)\b/.test(body) ? "failed" : /<skipped\b/.test(body) ? "skipped" : "passed";
    outcomes.push({ id: `${file}::${name.replaceAll("&quot;", '"').replaceAll("&amp;", "&")}`, result });
  }
  return outcomes;
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
    // The kit is one client hammering one token: no rate limit gets in its way.
    RATE_LIMIT_PER_SECOND: "0",
  };
  const seeded = JSON.parse(execFileSync(process.execPath, [CLI, "seed"], { env, encoding: "utf8" })) as {
    partnerToken: string;
  };
  // The kit knows nothing of params.metadata.storeId: its starts go to the workspace's default Environment.
  execFileSync(process.execPath, [CLI, "environment", "default", "--workspace", "demo", "store-001"], {
    env,
    stdio: ["ignore", "ignore", "inherit"],
  });
  const server = spawn(process.execPath, [CLI, "serve"], { env, stdio: ["ignore", "ignore", "inherit"] });
  const categories = process.env.A2A_TCK_CATEGORY ? [process.env.A2A_TCK_CATEGORY] : Object.keys(CATEGORIES);
  const transports = (process.env.A2A_TCK_TRANSPORTS ?? "jsonrpc,rest").split(",").map((t) => t.trim());
  const rows: string[] = [];
  const others: string[] = [];
  try {
    await waitForHealth(`http://127.0.0.1:${port}`, server);
    console.log(`reference server at ${baseUrl}; running the A2A TCK (${commit.slice(0, 7)})`);
    for (const category of categories) {
      const config = CATEGORIES[category];
      if (!config) throw new Error(`unknown category ${category}; one of ${Object.keys(CATEGORIES).join(", ")}`);
      for (const transport of transports) {
        const report = join(dataDir, `${category}-${transport}.xml`);
        const args = [
          "-m",
          "pytest",
          config.path,
          `--sut-url=${baseUrl}`,
          "--test-scope=all",
          "--tb=line",
          "-q",
          "-rs",
        ];
        args.push("-p", "no:cacheprovider", `--junitxml=${report}`, "--transports", transport);
        args.push("--transport-strategy", transport === "rest" ? "prefer_rest" : "prefer_jsonrpc");
        if (config.markers) args.push("-m", config.markers);
        console.log(`\n== ${category} over ${transport}`);
        const kit = spawn(interpreter, args, {
          cwd: tck,
          env: { ...process.env, A2A_AUTH_TYPE: "bearer", A2A_AUTH_TOKEN: seeded.partnerToken },
          stdio: ["ignore", "inherit", "inherit"],
        });
        await new Promise<void>((done) => kit.on("exit", () => done()));
        const outcomes = junitOutcomes(report);
        const failed = outcomes.filter((o) => o.result === "failed");
        const forced = failed.filter((o) => CONTRACT_FORCED.some((name) => o.id.includes(name)));
        const other = failed.filter((o) => !forced.includes(o));
        const count = (result: Outcome["result"]) => outcomes.filter((o) => o.result === result).length;
        rows.push(
          `| ${category} | ${transport} | ${count("passed")} | ${forced.length} | ${other.length} | ${count("skipped")} |`,
        );
        for (const o of other) others.push(`${category} / ${transport}: ${o.id}`);
      }
    }
  } finally {
    server.kill("SIGTERM");
    await new Promise((done) => server.once("exit", done));
    await rm(dataDir, { recursive: true, force: true });
  }
  console.log(`\nA2A TCK ${commit.slice(0, 7)}, per category and binding:\n`);
  console.log("| category | binding | passed | failed, forced by the contract | failed, other | skipped |");
  console.log("|---|---|---:|---:|---:|---:|");
  for (const row of rows) console.log(row);
  if (others.length > 0) console.log(`\nOther failures and errors:\n${others.map((o) => `- ${o}`).join("\n")}`);
  return others.length === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
