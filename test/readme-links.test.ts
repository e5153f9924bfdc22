import { describe, expect, it } from "vitest";
import { checkReadmeLinks, headingSlug } from "../scripts/packages/readme-links.ts";

// The check `pnpm check:packages` runs on every packed README: what npm would show as a dead link fails.
const REPO = "https://github.com/owner/repo";
const context = {
  packedFiles: new Set(["README.md", "LICENSE", "dist/index.js", "migrations/0001_init.sql"]),
  repositoryUrl: REPO,
  repositoryFileExists: (path: string) => ["docs/embedding.md", "packages/core/api"].includes(path),
  repositoryMarkdown: (path: string) => (path === "docs/embedding.md" ? "# Embedding\n\n## Options\n" : undefined),
};
const problemsOf = (markdown: string) => checkReadmeLinks(markdown, context).map(({ target }) => target);

describe("README links on npm", () => {
  it("refuses a relative link out of the package, and one to a file that is not packed", () => {
    const markdown = "# Pkg\n\nSee [the guide](../../docs/embedding.md) and [the report](api/pkg.api.md).\n";
    expect(checkReadmeLinks(markdown, context)).toEqual([
      { line: 3, target: "../../docs/embedding.md", problem: expect.stringContaining("out of the package") },
      { line: 3, target: "api/pkg.api.md", problem: expect.stringContaining("not in the packed package") },
    ]);
  });

  it("accepts links to packed files and folders, absolute URLs and anchors that headings make", () => {
    const markdown = [
      "# Pkg",
      "## The card's endpoint",
      "[license](./LICENSE) [sql](migrations/) [card](#the-cards-endpoint) [npm](https://www.npmjs.com/)",
      `[guide](${REPO}/blob/main/docs/embedding.md#options) [api](${REPO}/tree/main/packages/core/api)`,
      '<a href="#pkg">top</a>',
    ].join("\n");
    expect(problemsOf(markdown)).toEqual([]);
  });

  it("refuses an anchor no heading makes, a repository file that does not exist, and a missing anchor in it", () => {
    const markdown = `# Pkg\n[a](#nope) [b](${REPO}/blob/main/docs/gone.md) [c](${REPO}/blob/main/docs/embedding.md#stores)\n`;
    expect(problemsOf(markdown)).toEqual([
      "#nope",
      `${REPO}/blob/main/docs/gone.md`,
      `${REPO}/blob/main/docs/embedding.md#stores`,
    ]);
  });

  it("refuses a repository path named in prose, but not one in code", () => {
    const markdown = "# Pkg\nAs docs/protocol.md says, run `node scripts/x.ts`.\n\n```sh\ncat docs/protocol.md\n```\n";
    expect(problemsOf(markdown)).toEqual(["docs/protocol.md"]);
  });

  it("ignores links inside fenced code, and headings there", () => {
    const markdown = "# Pkg\n```md\n## Fake\n[x](../../out.md)\n```\n[y](#fake)\n";
    expect(problemsOf(markdown)).toEqual(["#fake"]);
  });

  it("makes anchors as GitHub and npm do", () => {
    expect(headingSlug("Two bindings: JSON-RPC and HTTP+JSON")).toBe("two-bindings-json-rpc-and-httpjson");
    expect(headingSlug("Plain `node:http`")).toBe("plain-nodehttp");
    expect(headingSlug("A2A v1.0 and v0.3")).toBe("a2a-v10-and-v03");
  });
});
