import { expectPositionals, parseCommandArgs, UsageError } from "@a2a-partner/a2a-core/node-runtime";
import type { ServerConfig } from "../config.ts";
import { runOperatorOperation } from "./operator-args.ts";

export const MEMBER_USAGE = `  member add --workspace <slug> <email> [--role <role>]
                                          make the user (created if new) an active member (role: member
                                          unless told); print the membership as JSON
  member list --workspace <slug>          list the workspace's members as JSON lines (workspace, user,
                                          role, status, created)
`;

/** `member add | list`. */
export async function memberCommand(config: ServerConfig, args: string[]): Promise<number> {
  const { verb, positionals, values } = parseCommandArgs(
    args,
    { workspace: { type: "string" }, role: { type: "string" } },
    MEMBER_USAGE,
  );
  const workspace = values.workspace;
  if (verb !== "add" && verb !== "list") throw new UsageError(`member needs add or list\n\n${MEMBER_USAGE}`);
  if (typeof workspace !== "string") throw new UsageError(`member ${verb} needs --workspace <slug>`);
  if (verb === "add") {
    expectPositionals(positionals, 1, "member add needs one email", MEMBER_USAGE);
    return runOperatorOperation(config, "member-add", { workspace, user: positionals[0], role: values.role });
  }
  expectPositionals(positionals, 0, "member list takes no arguments but --workspace", MEMBER_USAGE);
  return runOperatorOperation(config, "member-list", { workspace });
}
