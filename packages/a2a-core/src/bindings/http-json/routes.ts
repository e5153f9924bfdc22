import { type HttpRoute, METHODS, type MethodName, type MethodWire } from "../../protocol/method-table.js";

/** A request the HTTP+JSON binding answers: the method its route names, the path's fields, the query. */
export interface HttpJsonRoute {
  kind: "route";
  method: MethodName;
  route: HttpRoute;
  /** The route's `{name}` segments, decoded. */
  pathParams: Record<string, string>;
  query: URLSearchParams;
}

/** A path of the binding asked with a verb it does not take: HTTP 405 with `Allow`. */
export interface HttpJsonWrongVerb {
  kind: "wrong-verb";
  allow: string;
}

/** A path below the endpoint that names no route (a typo, a path not under the base path): HTTP 404. */
export interface HttpJsonNoRoute {
  kind: "no-route";
  path: string;
  /** The path names a resource deeper down and the handler has no base path: say how to set one. */
  basePathUnset?: true;
}

/** A path with dot segments or encoded slashes: HTTP 400, never matched (proxies may read it otherwise). */
export interface HttpJsonBadPath {
  kind: "bad-path";
  path: string;
}

export type HttpJsonMatch = HttpJsonRoute | HttpJsonWrongVerb | HttpJsonNoRoute | HttpJsonBadPath;

interface PathPattern {
  pattern: RegExp;
  names: string[];
  verbs: Map<string, { method: MethodName; route: HttpRoute }>;
}

/** Each route path of the method table, compiled once; one path may serve several verbs. */
const PATTERNS: readonly PathPattern[] = compile();

/** The first segments of the binding's routes (`tasks`, `message`, `extendedAgentCard`): its resources. */
const RESOURCES: ReadonlySet<string> = new Set(
  (Object.values(METHODS) as MethodWire[]).flatMap((wire) => wire.http.map((route) => resourceOf(route.path))),
);

function compile(): PathPattern[] {
  const byPath = new Map<string, PathPattern>();
  for (const [method, wire] of Object.entries(METHODS) as [MethodName, MethodWire][]) {
    for (const route of wire.http) {
      let entry = byPath.get(route.path);
      if (!entry) {
        const names: string[] = [];
        // A field at the end of the path stops at ":" (`/tasks/{id}` is not `/tasks/{id}:cancel`).
        const source = route.path.replace(/[.*+?^$()|[\]\\]|\{(\w+)\}/g, (token, name: string | undefined, at) => {
          if (name === undefined) return `\\${token}`;
          names.push(name);
          return at + token.length === route.path.length ? "([^/:]+)" : "([^/]+)";
        });
        entry = { pattern: new RegExp(`^${source}$`), names, verbs: new Map() };
        byPath.set(route.path, entry);
      }
      entry.verbs.set(route.verb, { method, route });
    }
  }
  return [...byPath.values()];
}

function resourceOf(path: string): string {
  return /^\/([^/:{]+)/.exec(path)?.[1] ?? "";
}

/**
 * The HTTP+JSON route a request names, or undefined when the request is JSON-RPC's (the endpoint's own
 * path). The path below `basePath` must be a route exactly: case-sensitive, no suffix matching, and no
 * dot segments or encoded slashes. Without a base path, the whole path is taken as below the mount (as
 * Express's `app.use(path, …)` hands it over); a path that is not one of the binding's resources is then
 * JSON-RPC's, as it always was.
 */
export function matchHttpJsonRoute(verb: string, url: string, basePath?: string): HttpJsonMatch | undefined {
  const queryAt = url.indexOf("?");
  const full = queryAt === -1 ? url : url.slice(0, queryAt);
  const pathname = pathnameOf(full);
  let below = pathname;
  if (basePath !== undefined) {
    const base = withoutTrailingSlash(basePath);
    if (pathname !== base && !pathname.startsWith(`${base}/`)) return { kind: "no-route", path: full };
    below = pathname.slice(base.length);
  }
  if (below === "" || below === "/") return undefined;
  if (!RESOURCES.has(resourceOf(below))) {
    if (basePath !== undefined) return { kind: "no-route", path: full };
    return mentionsResource(below) ? { kind: "no-route", path: full, basePathUnset: true } : undefined;
  }
  if (walksPath(below)) return { kind: "bad-path", path: full };
  for (const { pattern, names, verbs } of PATTERNS) {
    const match = pattern.exec(below);
    if (!match) continue;
    const found = verbs.get(verb);
    if (!found) return { kind: "wrong-verb", allow: [...verbs.keys()].join(", ") };
    const pathParams: Record<string, string> = {};
    names.forEach((name, index) => {
      pathParams[name] = decoded(match[index + 1] as string);
    });
    return {
      kind: "route",
      method: found.method,
      route: found.route,
      pathParams,
      query: new URLSearchParams(queryAt === -1 ? "" : url.slice(queryAt + 1)),
    };
  }
  return { kind: "no-route", path: full };
}

/**
 * Whether a request URL is the endpoint's, mounted at `basePath`: the base path itself (JSON-RPC) or one of
 * the HTTP+JSON binding's resources below it. What a server's router sends to the handler.
 */
export function isEndpointPath(url: string, basePath: string): boolean {
  const queryAt = url.indexOf("?");
  const pathname = pathnameOf(queryAt === -1 ? url : url.slice(0, queryAt));
  const base = withoutTrailingSlash(basePath);
  if (pathname !== base && !pathname.startsWith(`${base}/`)) return false;
  const below = pathname.slice(base.length);
  return below === "" || below === "/" || RESOURCES.has(resourceOf(below));
}

/**
 * Whether a path names one of the binding's resources deeper down (`/a2a/tasks/{id}` handed over whole):
 * such a request was meant for the binding, and is answered 404 rather than read as JSON-RPC.
 */
function mentionsResource(path: string): boolean {
  return path.split("/").some((segment) => RESOURCES.has(segment.split(":")[0] ?? ""));
}

/**
 * Whether a path holds a dot segment, literal or once decoded (`%2e%2e`, `..%2f`), or a backslash: what a
 * proxy's path rules could be walked around with. An encoded slash inside an id (`ops%2F1`) is an id.
 */
function walksPath(path: string): boolean {
  if (path.includes("\\")) return true;
  const unescaped = /%/.test(path) ? path.replace(/%2e/gi, ".").replace(/%2f/gi, "/").replace(/%5c/gi, "\\") : path;
  return /(^|[/\\])\.\.?([/\\]|$)/.test(unescaped);
}

/** `/a2a/` → `/a2a`; the root `/` → "" (every path is below it). */
function withoutTrailingSlash(path: string): string {
  return path.endsWith("/") ? path.slice(0, -1) : path;
}

/** The path of an absolute URL (`http://host/a/b` → `/a/b`), or the path itself. */
function pathnameOf(url: string): string {
  if (url.startsWith("/")) return url;
  const scheme = url.indexOf("://");
  if (scheme === -1) return url;
  const slash = url.indexOf("/", scheme + 3);
  return slash === -1 ? "/" : url.slice(slash);
}

/** A path segment decoded; one that is not valid percent-encoding is taken as it is. */
function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
