// A streamed start as an application without the typed client sends it: no package imported, so the
// runtimes' servers, the PGlite app and the test runner itself (which cannot resolve the app's packages)
// share it.

/** What a plain `fetch` (any HTTP client) sees of a streamed start: the content type, then each frame's event name in order. */
export interface FetchedStream {
  contentType: string | null;
  frames: string[];
}

/** A streamed start with `fetch` itself, as an application without the typed client sends it. */
export async function streamWithFetch(
  send: (request: Request) => Promise<Response>,
  baseUrl: string,
  token: string,
): Promise<FetchedStream> {
  const response = await send(
    new Request(`${baseUrl}/api/v1/a2a`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: "1",
        method: "SendStreamingMessage",
        params: {
          message: { role: "user", messageId: "m-1", parts: [{ kind: "text", text: "restock aisle 5" }] },
          metadata: { storeId: "store-001" },
        },
      }),
    }),
  );
  const frames = [...(await response.text()).matchAll(/^event: (\w+)$/gm)].map((match) => match[1] ?? "");
  return { contentType: response.headers.get("content-type"), frames };
}
