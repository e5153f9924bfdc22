/**
 * Whether `renewed` is all of `ids`, checked without building a Set: a runner renews thousands of leases
 * every few seconds, nearly always every one. This project's stores answer in the order they were asked;
 * a store that answers in another order only costs the caller its Set.
 */
export function everyOneRenewed(ids: readonly string[], renewed: readonly string[]): boolean {
  if (renewed.length !== ids.length) return false;
  for (let i = 0; i < ids.length; i++) if (ids[i] !== renewed[i]) return false;
  return true;
}
