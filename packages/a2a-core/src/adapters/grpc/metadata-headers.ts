import type { Metadata } from "@grpc/grpc-js";
import type { HeaderReader } from "../../protocol/header-reader.js";

/**
 * A call's metadata read as request headers (A2A's service parameters travel as metadata: `authorization`,
 * `a2a-version`, `last-event-id`, …): several values joined by ", ", binary (`-bin`) keys never.
 */
export function metadataHeaders(metadata: Metadata): HeaderReader {
  return {
    get(name) {
      const values = metadata.get(name.toLowerCase()).filter((value): value is string => typeof value === "string");
      return values.length === 0 ? null : values.join(", ");
    },
  };
}
