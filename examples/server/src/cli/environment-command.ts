import { expectPositionals, parseCommandArgs, UsageError } from "@a2a-partner/a2a-core/node-runtime";
import type { ServerConfig } from "../config.ts";
import { runOperatorOperation } from "./operator-args.ts";

export const ENVIRONMENT_USAGE = `  environment create --workspace <slug> <storeId> [--name <name>] [--robots N]
                                          create an Environment (what a task's storeId names) with N
                                          robots (default 3; with 0, every task there ends rejected);
                                          print it as JSON
  environment list [--workspace <slug>]   list Environments as JSON lines (id, workspace, storeId, name,
                                          robots, default, created)
  environment default --workspace <slug> <storeId>
                                          make it the workspace's default Environment
`;

/** `environment create | list | default`. */
export async function environmentCommand(config: ServerConfig, args: string[]): Promise<number> {
  const { verb, positionals, values } = parseCommandArgs(
    args,
    { workspace: { type: "string" }, name: { type: "string" }, robots: { type: "string" } },
    ENVIRONMENT_USAGE,
  );
  const workspace = values.workspace;
  switch (verb) {
    case "create":
      expectPositionals(positionals, 1, "environment create needs one store id", ENVIRONMENT_USAGE);
      if (typeof workspace !== "string") throw new UsageError(`environment create needs --workspace <slug>`);
      return runOperatorOperation(config, "environment-create", {
        workspace,
        storeId: positionals[0],
        name: values.name,
        robots: values.robots,
      });
    case "list":
      expectPositionals(positionals, 0, "environment list takes no arguments but --workspace", ENVIRONMENT_USAGE);
      return runOperatorOperation(config, "environment-list", { workspace });
    case "default":
      expectPositionals(positionals, 1, "environment default needs one store id", ENVIRONMENT_USAGE);
      if (typeof workspace !== "string") throw new UsageError(`environment default needs --workspace <slug>`);
      return runOperatorOperation(config, "environment-default", { workspace, storeId: positionals[0] });
    default:
      throw new UsageError(`environment needs create, list or default\n\n${ENVIRONMENT_USAGE}`);
  }
}
