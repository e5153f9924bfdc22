import type * as Api from "@opentelemetry/api";

/** The `@opentelemetry/api` module, when the application has it installed. */
export type OtelApi = typeof Api;

let loaded: OtelApi | null | undefined;

/**
 * `@opentelemetry/api` if it can be found, else undefined. It is an optional peer dependency: an
 * application without it must not fail to import this package, so it is looked up once, synchronously,
 * instead of imported (a2a-client, postgres-store and metrics-core use this one). Every copy of the API
 * shares one global registry, so whichever copy this finds sees the SDK the application registered;
 * without an SDK every call is the API's own no-op.
 */
export function otelApi(): OtelApi | undefined {
  if (loaded === undefined) loaded = load() ?? null;
  return loaded ?? undefined;
}

function load(): OtelApi | undefined {
  try {
    const nodeModule = globalThis.process?.getBuiltinModule?.("node:module");
    if (!nodeModule) return undefined;
    // The CommonJS build has __filename; the ES module build has import.meta.url.
    const from = typeof __filename === "string" ? __filename : import.meta.url;
    return nodeModule.createRequire(from)("@opentelemetry/api") as OtelApi;
  } catch {
    return undefined;
  }
}
