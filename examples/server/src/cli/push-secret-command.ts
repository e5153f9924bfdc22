import { parseOptionsOnly } from "@a2a-partner/a2a-core/node-runtime";
import type { ServerConfig } from "../config.ts";
import { runOperatorOperation } from "./operator-args.ts";

export const PUSH_SECRET_USAGE = `  push-secret --workspace <slug> [--rotate [--grace <24h|…|0>]] [--retire-old]
                                          print the workspace's push signing secret (whsec_…) as JSON,
                                          creating one if none; --rotate makes a new one, and the old one
                                          keeps signing until the grace (24h) ends; --retire-old stops
                                          every old secret still signing at once (the current one stays)
`;

/** `push-secret --workspace <slug> [--rotate] [--grace <duration>] [--retire-old]` (admin/push-secret-operations.ts). */
export function pushSecretCommand(config: ServerConfig, args: string[]): Promise<number> {
  const values = parseOptionsOnly(
    "push-secret",
    args,
    {
      workspace: { type: "string" },
      rotate: { type: "boolean" },
      grace: { type: "string" },
      "retire-old": { type: "boolean" },
    },
    PUSH_SECRET_USAGE,
  );
  return runOperatorOperation(config, "push-secret", {
    workspace: values.workspace,
    rotate: values.rotate === true,
    retireOld: values["retire-old"] === true,
    grace: values.grace,
  });
}
