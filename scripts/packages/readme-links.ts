/**
 * The links of a package README as npm shows it: npm renders the README of the tarball, where a
 * relative link out of the package (`../../docs/…`) or to a file that is not packed is dead, and so is an
 * anchor no heading makes. Pure: the caller says which files the tarball holds and which repository
 * files exist.
 */

export interface ReadmeContext {
  /** Paths inside the package, as packed (`README.md`, `dist/index.js`, …). */
  packedFiles: ReadonlySet<string>;
  /** The package.json `repository` URL without `.git` (`https://github.com/owner/name`), if any. */
  repositoryUrl?: string;
  /** Whether a path of the repository exists (for absolute links into it, `…/blob/main/docs/x.md`). */
  repositoryFileExists?: (path: string) => boolean;
  /** The text of a repository Markdown file, to check an anchor in a link to it. */
  repositoryMarkdown?: (path: string) => string | undefined;
}

export interface LinkProblem {
  line: number;
  target: string;
  problem: string;
}

const FENCE = /^\s*(```|~~~)/;
/** `[text](target "title")`, `![alt](target)`: the target ends at whitespace or the closing parenthesis. */
const INLINE_LINK = /!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)/g;
const REFERENCE_DEFINITION = /^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$/;
const HTML_ATTRIBUTE = /\b(?:href|src)\s*=\s*["']([^"']+)["']/g;
/** A repository path named in prose instead of linked: on npm it points at nothing. */
const BARE_REPOSITORY_PATH = /(?<![\w/.-])(?:docs|examples|bench|scripts)\/[\w./-]+/g;

/** GitHub's (and npm's) heading anchors: lower case, punctuation dropped, spaces as hyphens. */
export function headingSlug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/`/g, "")
    .trim()
    .toLowerCase();
  return text.replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "").replace(/ /g, "-");
}

/** The anchors the README's headings make, numbered as GitHub numbers repeated ones (`x`, `x-1`). */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const { text } of proseLines(markdown)) {
    const heading = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(text)?.[1];
    if (heading === undefined) continue;
    const slug = headingSlug(heading);
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** Every broken or package-escaping link of `markdown`, with its line. */
export function checkReadmeLinks(markdown: string, context: ReadmeContext): LinkProblem[] {
  const anchors = headingAnchors(markdown);
  const problems: LinkProblem[] = [];
  for (const { line, text } of proseLines(markdown)) {
    const withoutCode = text.replace(/`[^`]*`/g, (code) => " ".repeat(code.length));
    const targets = [
      ...[...withoutCode.matchAll(INLINE_LINK)].map((match) => match[1] ?? ""),
      ...[...withoutCode.matchAll(HTML_ATTRIBUTE)].map((match) => match[1] ?? ""),
    ];
    const definition = REFERENCE_DEFINITION.exec(withoutCode)?.[1];
    if (definition !== undefined) targets.push(definition);
    for (const target of targets) {
      const problem = checkTarget(target, anchors, context);
      if (problem) problems.push({ line, target, problem });
    }
    const prose = withoutCode.replace(INLINE_LINK, (link) => " ".repeat(link.length));
    for (const match of prose.matchAll(BARE_REPOSITORY_PATH)) {
      problems.push({
        line,
        target: match[0],
        problem: "names a repository file that is not in the package: link it with an absolute URL",
      });
    }
  }
  return problems;
}

function checkTarget(target: string, anchors: ReadonlySet<string>, context: ReadmeContext): string | undefined {
  if (target === "") return "empty link";
  if (target.startsWith("#")) {
    return anchors.has(decodeURIComponent(target.slice(1))) ? undefined : "no heading makes this anchor";
  }
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return checkAbsolute(target, context);
  if (target.startsWith("//")) return "protocol-relative URL: write https://";
  const path = target.split("#")[0]?.split("?")[0] ?? "";
  const resolved = resolveInside(path);
  if (resolved === undefined) return "relative link out of the package: dead on npm (use an absolute URL)";
  if (context.packedFiles.has(resolved)) return undefined;
  const isFolder = [...context.packedFiles].some((file) => file.startsWith(`${resolved}/`));
  return isFolder ? undefined : `links to ${resolved}, which is not in the packed package`;
}

function checkAbsolute(target: string, context: ReadmeContext): string | undefined {
  if (/^http:/i.test(target) && !/^http:\/\/(localhost|127\.0\.0\.1)/i.test(target)) return "use https://";
  const repository = context.repositoryUrl;
  if (!repository || !context.repositoryFileExists) return undefined;
  const inRepository = new RegExp(`^${escapeRegExp(repository)}/(?:blob|tree)/[^/]+/([^#?]*)`).exec(target);
  if (!inRepository) return undefined;
  const path = decodeURIComponent(inRepository[1] ?? "").replace(/\/$/, "");
  if (!context.repositoryFileExists(path)) return `no ${path} in the repository`;
  const anchor = /#(.+)$/.exec(target)?.[1];
  const markdown = anchor && path.endsWith(".md") ? context.repositoryMarkdown?.(path) : undefined;
  if (anchor && markdown !== undefined && !headingAnchors(markdown).has(decodeURIComponent(anchor))) {
    return `no heading of ${path} makes #${anchor}`;
  }
  return undefined;
}

/** `./a/../b.md` → `b.md`; undefined when the path leaves the package (or is absolute). */
function resolveInside(path: string): string | undefined {
  if (path.startsWith("/")) return undefined;
  const parts: string[] = [];
  for (const part of decodeURIComponent(path).split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") {
      if (parts.length === 0) return undefined;
      parts.pop();
    } else parts.push(part);
  }
  return parts.join("/");
}

/** The README's lines outside fenced code blocks, numbered from 1. */
function proseLines(markdown: string): Array<{ line: number; text: string }> {
  const lines: Array<{ line: number; text: string }> = [];
  let fence: string | undefined;
  markdown.split("\n").forEach((text, index) => {
    const marker = FENCE.exec(text)?.[1];
    if (marker !== undefined && (fence === undefined || marker === fence)) {
      fence = fence === undefined ? marker : undefined;
      return;
    }
    if (fence === undefined) lines.push({ line: index + 1, text });
  });
  return lines;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
