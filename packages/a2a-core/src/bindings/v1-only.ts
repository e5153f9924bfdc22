import { parseProtocolVersion } from "../protocol/dialect/protocol-version.js";
import { VersionNotSupportedError } from "../protocol/errors.js";

/**
 * For a binding that speaks A2A v1.0 only (HTTP+JSON, gRPC): no `A2A-Version` reads as 1.0 (there is no
 * v0.3 form to fall back to); an explicit other version is refused.
 */
export function refuseUnlessV1(requested: string | null): VersionNotSupportedError | undefined {
  const raw = requested ?? "";
  if (raw.trim() === "") return undefined;
  const parsed = parseProtocolVersion(raw);
  if (parsed.ok && parsed.version === "1.0") return undefined;
  return VersionNotSupportedError.forVersion(raw.trim(), ["1.0"]);
}
