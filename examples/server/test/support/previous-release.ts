import { join } from "node:path";
import { releaseCheckout } from "../../../../scripts/release-checkout.ts";

/**
 * The release a rolling upgrade starts from: the rolling-upgrade test runs it beside this tree on one
 * database. `main` as it stood before the current line of changes (2026-12-06); move it forward to the
 * commit of each release once one is cut, so every upgrade path a user can take is the one tested.
 */
export const PREVIOUS_RELEASE = "eb583b24627f39af46146426703372757494b34d";

/** The previous release's `examples/server`, installed and built (about a minute the first time). */
export async function previousReleaseServerDir(): Promise<string> {
  return join(await releaseCheckout(PREVIOUS_RELEASE), "examples", "server");
}
