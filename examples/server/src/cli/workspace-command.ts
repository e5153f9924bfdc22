import { expectPositionals, parseCommandArgs, UsageError } from "@a2a-partner/a2a-core/node-runtime";
import type { ServerConfig } from "../config.ts";
import { runOperatorOperation } from "./operator-args.ts";

export const WORKSPACE_USAGE = `  workspace create <slug> [--name <name>] [--visibility public|private]
                                          create a workspace (private unless told); print it as JSON
  workspace list                          list workspaces as JSON lines (id, slug, name, visibility,
                                          defaultEnvironment, created)
  workspace visibility <slug> public|private
                                          change who may read the workspace's metrics without a membership
`;

/** `workspace create | list | visibility`. */
export async function workspaceCommand(config: ServerConfig, args: string[]): Promise<number> {
  const { verb, positionals, values } = parseCommandArgs(
    args,
    { name: { type: "string" }, visibility: { type: "string" } },
    WORKSPACE_USAGE,
  );
  switch (verb) {
    case "create":
      expectPositionals(positionals, 1, "workspace create needs one slug", WORKSPACE_USAGE);
      return runOperatorOperation(config, "workspace-create", {
        slug: positionals[0],
        name: values.name,
        visibility: values.visibility,
      });
    case "list":
      expectPositionals(positionals, 0, "workspace list takes no arguments", WORKSPACE_USAGE);
      return runOperatorOperation(config, "workspace-list", {});
    case "visibility":
      expectPositionals(positionals, 2, "workspace visibility needs a slug and public or private", WORKSPACE_USAGE);
      return runOperatorOperation(config, "workspace-visibility", { slug: positionals[0], visibility: positionals[1] });
    default:
      throw new UsageError(`workspace needs create, list or visibility\n\n${WORKSPACE_USAGE}`);
  }
}
