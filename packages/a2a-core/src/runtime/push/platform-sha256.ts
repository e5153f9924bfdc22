type OneShotHash = (algorithm: string, data: Uint8Array, outputEncoding: "buffer") => Uint8Array;

let nodeHash: OneShotHash | null | undefined;

/**
 * `node:crypto`'s one-shot `hash`, where the runtime hands out Node's built-ins synchronously
 * (`process.getBuiltinModule`: Node, and Bun and Deno in their Node mode); null elsewhere. Looked up, not
 * imported: this package runs where `node:crypto` does not exist.
 */
function nodeOneShotHash(): OneShotHash | null {
  if (nodeHash !== undefined) return nodeHash;
  const runtime = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  const crypto = runtime?.getBuiltinModule?.("node:crypto") as { hash?: OneShotHash } | undefined;
  nodeHash = typeof crypto?.hash === "function" ? crypto.hash : null;
  return nodeHash;
}

/**
 * SHA-256 by the platform: `node:crypto`'s where it is reachable (synchronous, on the calling thread: the
 * push bench measured Web Crypto's per-call thread-pool job and promise at 6 % of the server's CPU, for a
 * few dozen bytes per delivery), else Web Crypto's `crypto.subtle.digest` (every runtime has it).
 * `webCryptoOnly` is for tests of the second path.
 */
export async function platformSha256(bytes: Uint8Array<ArrayBuffer>, webCryptoOnly = false): Promise<Uint8Array> {
  const hash = webCryptoOnly ? null : nodeOneShotHash();
  if (hash) return new Uint8Array(hash("sha256", bytes, "buffer"));
  return new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
}
