import { describe, expect, it } from "vitest";
import { guardedPushFetch, nodePushDestinationCheck, type PushAddressLookup } from "../src/node.js";
import { PUSH_POST, type PushPost } from "../src/runtime/push/push-post.js";
import { receiverPerTest } from "./support/push-receiver.js";

/** A resolver with fixed answers (no DNS server needed): the names the tests use, and nothing else. */
const lookup: PushAddressLookup = async (hostname) => {
  const answers: Record<string, Array<{ address: string; family: number }>> = {
    "receiver.test": [{ address: "127.0.0.1", family: 4 }],
    "public.test": [{ address: "93.184.216.34", family: 4 }],
    "mixed.test": [
      { address: "93.184.216.34", family: 4 },
      { address: "10.0.0.7", family: 4 },
    ],
    "metadata.test": [{ address: "::ffff:169.254.169.254", family: 6 }],
  };
  const found = answers[hostname];
  if (found) return found;
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
};

const receiver = receiverPerTest();

/** The cause undici's `fetch failed` carries. */
async function failure(request: Promise<Response>): Promise<{ code?: string; message: string }> {
  const error = (await request.then(
    () => {
      throw new Error("the request went through");
    },
    (e: unknown) => e,
  )) as Error & { cause?: { code?: string; message: string } };
  return error.cause ?? { message: error.message };
}

describe("guardedPushFetch", () => {
  it("does not connect to a name that resolves to 127.0.0.1", async () => {
    const send = guardedPushFetch({ lookup });
    const cause = await failure(send(`http://receiver.test:${receiver.port}/hook`, { method: "POST", body: "{}" }));
    expect(cause.code).toBe("ERR_PUSH_DESTINATION_REFUSED");
    expect(cause.message).toContain("receiver.test resolves to 127.0.0.1, a loopback address");
    expect(receiver.received).toEqual([]);
  });

  it("connects to it once the operator allows the address or the name", async () => {
    for (const allowedHosts of [["127.0.0.1"], ["127.0.0.0/8"], ["receiver.test"]]) {
      const send = guardedPushFetch({ allowedHosts, lookup });
      const response = await send(`http://receiver.test:${receiver.port}/hook`, { method: "POST", body: "{}" });
      expect(response.status).toBe(200);
    }
    expect(receiver.received).toHaveLength(3);
  });

  it("judges a literal IP (no lookup happens) and never follows a redirect", async () => {
    const refused = await failure(guardedPushFetch()(receiver.url(), { method: "POST", body: "{}" }));
    expect(refused.message).toContain("127.0.0.1 is a loopback address");

    receiver.answers.push({ status: 307, headers: { location: "http://169.254.169.254/latest/meta-data" } });
    const send = guardedPushFetch({ allowedHosts: ["127.0.0.1"] });
    const response = await send(receiver.url(), { method: "POST", body: "{}" });
    expect(response.status).toBe(307);
    expect(receiver.received).toHaveLength(1);
  });

  it("refuses a name with any forbidden address among its addresses", async () => {
    const cause = await failure(guardedPushFetch({ lookup })("http://mixed.test/hook", { method: "POST" }));
    expect(cause.message).toContain("mixed.test resolves to 10.0.0.7, a private address");
  });
});

describe("guardedPushFetch's sender of deliveries (undici request, carried under PUSH_POST)", () => {
  const postOf = (send: typeof fetch) => (send as unknown as Record<symbol, PushPost>)[PUSH_POST] as PushPost;
  const post = (send: typeof fetch, url: string) =>
    postOf(send)(
      { url, headers: { "content-type": "application/json" }, body: '{"a":1}' },
      new AbortController().signal,
    );

  it("goes through the same guard: a name resolving to 127.0.0.1, a literal loopback, a mixed name", async () => {
    await expect(
      post(guardedPushFetch({ lookup }), `http://receiver.test:${receiver.port}/hook`),
    ).rejects.toMatchObject({
      code: "ERR_PUSH_DESTINATION_REFUSED",
      message: expect.stringContaining("receiver.test resolves to 127.0.0.1, a loopback address"),
    });
    await expect(post(guardedPushFetch(), receiver.url())).rejects.toThrow(/127\.0\.0\.1 is a loopback address/);
    await expect(post(guardedPushFetch({ lookup }), "http://mixed.test/hook")).rejects.toThrow(
      /10\.0\.0\.7, a private/,
    );
    expect(receiver.received).toEqual([]);
  });

  it("posts the request as given and answers status and Retry-After; never follows a redirect", async () => {
    const send = guardedPushFetch({ allowedHosts: ["receiver.test"], lookup });
    receiver.answers.push({ status: 503, headers: { "retry-after": "7" } });
    receiver.answers.push({ status: 307, headers: { location: "http://169.254.169.254/latest/meta-data" } });
    const url = `http://receiver.test:${receiver.port}/hook?tenant=7`;
    expect(await post(send, url)).toEqual({ status: 503, retryAfter: "7" });
    expect(await post(send, url)).toEqual({ status: 307, retryAfter: null });
    expect(await post(send, url)).toEqual({ status: 200, retryAfter: null });
    expect(receiver.received).toHaveLength(3);
    expect(receiver.received[0]).toMatchObject({ path: "/hook?tenant=7", body: '{"a":1}' });
    expect(receiver.received[0]?.headers["content-type"]).toBe("application/json");
  });

  it("refuses a URL with credentials in it, as fetch does", async () => {
    const send = guardedPushFetch({ allowedHosts: ["127.0.0.1"] });
    await expect(post(send, `http://user:pw@127.0.0.1:${receiver.port}/`)).rejects.toThrow(/credentials/);
    expect(receiver.received).toEqual([]);
  });
});

describe("nodePushDestinationCheck", () => {
  const check = nodePushDestinationCheck({ lookup });
  const judge = (url: string) => check(new URL(url));

  it("resolves a name and refuses it when an address is forbidden, saying by which rule but not the address", async () => {
    expect(await judge("https://public.test/hook")).toBeUndefined();
    // The client learns the rule, never what the name resolved to nor why its lookup failed.
    expect(await judge("https://receiver.test/hook")).toBe("receiver.test resolves to a loopback address");
    expect(await judge("https://mixed.test/hook")).toBe("mixed.test resolves to a private address");
    expect(await judge("https://metadata.test/")).toBe(
      "metadata.test resolves to a link-local address (cloud metadata lives there)",
    );
    expect(await judge("https://nowhere.test/")).toBe("nowhere.test does not resolve");
    // A literal address is the client's own: it is named.
    expect(await judge("http://10.0.0.7/")).toBe("10.0.0.7 is a private address");
  });

  it("keeps the rules that need no DNS, and the operator's exceptions", async () => {
    expect(await judge("http://localhost:8080/")).toContain("localhost");
    expect(await judge("http://[::1]/")).toContain("loopback");
    expect(await judge("gopher://public.test/")).toMatch(/only http/);
    const allowing = nodePushDestinationCheck({ lookup, allowedHosts: ["127.0.0.1", "mixed.test"] });
    expect(await allowing(new URL("https://receiver.test/"))).toBeUndefined();
    expect(await allowing(new URL("https://mixed.test/"))).toBeUndefined();
  });

  it("resolves with the system's resolver by default", async () => {
    // `localhost` is refused by name before any lookup; a name that cannot exist fails the lookup.
    const system = nodePushDestinationCheck();
    expect(await system(new URL("http://a2a-push-test.invalid/"))).toBe("a2a-push-test.invalid does not resolve");
  });
});
