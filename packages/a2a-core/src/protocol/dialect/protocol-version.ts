import type { HeaderReader } from "../header-reader.js";

/** The A2A versions this endpoint speaks, as `Major.Minor` (patch numbers never count). */
export const SUPPORTED_PROTOCOL_VERSIONS = ["0.3", "1.0"] as const;
export type ProtocolVersion = (typeof SUPPORTED_PROTOCOL_VERSIONS)[number];

export const A2A_VERSION_HEADER = "A2A-Version";

export type RequestedVersion =
  | {
      ok: true;
      version: ProtocolVersion;
      /** No version was given (so 0.3); a binding may still read the body as v1.0 by its shape. */
      implicit?: true;
    }
  | { ok: false; requested: string };

/**
 * The version a request asks for: its `A2A-Version` header, else its `A2A-Version` query parameter, else
 * 0.3 (A2A v1.0: "Agents MUST interpret empty value as 0.3"). `1.0.2` reads as 1.0; anything that is not
 * a supported `Major.Minor` is refused.
 */
export function requestedProtocolVersion(headers: HeaderReader, url?: string): RequestedVersion {
  const raw = headers.get(A2A_VERSION_HEADER) ?? versionFromQuery(url) ?? "";
  return parseProtocolVersion(raw);
}

const IMPLICIT_V03: RequestedVersion = Object.freeze({ ok: true, version: "0.3", implicit: true });

export function parseProtocolVersion(raw: string): RequestedVersion {
  const value = raw.trim();
  if (value === "") return IMPLICIT_V03;
  const match = /^(\d{1,4})(?:\.(\d{1,4}))?(?:\.\d{1,4})?$/.exec(value);
  const version = match ? `${Number(match[1])}.${Number(match[2] ?? 0)}` : undefined;
  return (SUPPORTED_PROTOCOL_VERSIONS as readonly string[]).includes(version ?? "")
    ? { ok: true, version: version as ProtocolVersion }
    : { ok: false, requested: value };
}

function versionFromQuery(url: string | undefined): string | undefined {
  const query = url?.indexOf("?") ?? -1;
  if (url === undefined || query === -1) return undefined;
  let params: URLSearchParams;
  try {
    params = new URLSearchParams(url.slice(query + 1));
  } catch {
    return undefined;
  }
  // Query parameter names are case-sensitive in general; this one is matched like its header twin.
  for (const [name, value] of params) if (name.toLowerCase() === "a2a-version") return value;
  return undefined;
}
