import { text } from "node:stream/consumers";
import { parseCommandArgs, UsageError } from "@a2a-partner/a2a-core/node-runtime";
import {
  createWorkspaceToken,
  listTokens,
  revokeToken,
  type TokenListing,
  type TokenRequest,
} from "../admin/token-operations.ts";
import { hashToken, type IssuedToken } from "../auth/tokens.ts";
import type { ServerConfig } from "../config.ts";
import { migrateReferenceSchema } from "../migrations.ts";
import { printLine, runAdminCommand } from "./run-admin-command.ts";

export const TOKEN_USAGE = `  token create --workspace <slug> --kind partner|user [--user <email>] [--expires-in <30d|12h|…>] [--activate]
                                          create a token and print it (its id goes to stderr); --activate
                                          makes the user's inactive membership active again
  token list [--workspace <slug>]         list tokens (id, kind, workspace, user, label, created, revoked,
                                          expires, hash prefix) as JSON lines; never a token's value; with
                                          --workspace, its partner tokens and its active members' user tokens
  token revoke <id | prefix>              revoke a token by its id, or a unique prefix (8+ characters) of its
                                          id or hash (see \`token list\`): every server refuses it within ms
  token revoke --stdin                    revoke the token whose value is read from stdin
`;

/** `token create | list | revoke`; throws UsageError for a malformed command line. */
export async function tokenCommand(config: ServerConfig, args: string[]): Promise<number> {
  // An unknown option or a missing value is a wrong command line: exit 2, like every other.
  const { verb, positionals, values } = parseCommandArgs(args, TOKEN_OPTIONS, TOKEN_USAGE);
  switch (verb) {
    case "create":
      return create(config, values);
    case "list": {
      const filter = typeof values.workspace === "string" ? { workspace: values.workspace } : {};
      return runAdminCommand(config, {
        name: "tokens",
        request: filter,
        run: async (db) => listTokens(db, filter),
        print: (rows: TokenListing[]) => {
          for (const row of rows) printLine(row);
        },
      });
    }
    case "revoke": {
      const ref = values.stdin ? await hashOfStdin() : positionals[0];
      if (!ref) throw new UsageError("token revoke needs the token's id, or a prefix of its id or hash (or --stdin)");
      return runAdminCommand(config, {
        name: "revoke",
        request: { ref },
        run: (db) => revokeToken(db, ref),
        print: ({ revoked }: { revoked: string }) => printLine(`revoked ${revoked}`),
      });
    }
    default:
      throw new UsageError("token needs create, list or revoke");
  }
}

function create(config: ServerConfig, values: Record<string, string | boolean | undefined>): Promise<number> {
  const { workspace, kind, user } = values;
  if (typeof workspace !== "string" || (kind !== "partner" && kind !== "user")) {
    throw new UsageError("token create needs --workspace <slug> and --kind partner|user");
  }
  const request: TokenRequest = {
    workspace,
    kind,
    ...(typeof user === "string" ? { user } : {}),
    ...(typeof values["expires-in"] === "string" ? { expiresIn: values["expires-in"] } : {}),
    ...(values.activate === true ? { activate: true } : {}),
  };
  return runAdminCommand(config, {
    name: "token",
    request,
    run: async (db) => {
      await migrateReferenceSchema(db);
      return createWorkspaceToken(db, request);
    },
    print: (issued: IssuedToken) => {
      // stdout carries the token alone (scripts read it); the note on stderr names it without the secret.
      printLine(issued.token);
      const expiry = issued.expiresAt ? `, expires ${issued.expiresAt}` : "";
      process.stderr.write(`created token ${issued.id}${expiry} (revoke: pnpm cli token revoke ${issued.id})\n`);
    },
  });
}

/** The SHA-256 (hex) of the token piped in: the secret itself never leaves this process. */
async function hashOfStdin(): Promise<string> {
  const token = (await text(process.stdin)).trim();
  if (!token) throw new UsageError("token revoke --stdin read no token");
  return hashToken(token).toString("hex");
}

const TOKEN_OPTIONS = {
  workspace: { type: "string" },
  kind: { type: "string" },
  user: { type: "string" },
  "expires-in": { type: "string" },
  activate: { type: "boolean" },
  stdin: { type: "boolean" },
} as const;
