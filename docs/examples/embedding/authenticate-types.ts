import type * as Core from "@a2a-partner/a2a-core";
import type { HeaderReader } from "@a2a-partner/a2a-core";
import { type Equal, sameType } from "../type-equal.ts";

// #region snippet
type Authenticate = (headers: HeaderReader) => Promise<AuthOutcome>; // HeaderReader: { get(name): string | null }

type AuthOutcome =
  | { ok: true; workspaceId: string; principal?: string } // principal: for logs only
  | { ok: false; status: 401 | 403; message: string };
// #endregion snippet

sameType<Equal<Authenticate, Core.Authenticate>>();
sameType<Equal<AuthOutcome, Core.AuthOutcome>>();
