/** An authenticated caller, as every layer above admission sees it. */
export interface Caller {
  workspaceId: string;
  /** Rate limits and stream caps count per key: the credential's principal, else the workspace. */
  key: string;
}
