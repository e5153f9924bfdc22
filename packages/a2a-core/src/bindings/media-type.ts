import type { A2AHandlerRequest } from "../ports/handler.js";
import type { A2AHandlerResponse } from "../ports/handler-response.js";
import { ContentTypeNotSupportedError } from "../protocol/errors.js";

/** A2A's own media type (specification v1.0.1), for the HTTP+JSON binding's bodies. */
export const A2A_MEDIA_TYPE = "application/a2a+json";
/** What a request body may be sent as: A2A's media type, or plain JSON as most clients send it. */
const READABLE = new Set([A2A_MEDIA_TYPE, "application/json"]);

function essence(value: string): string {
  return (value.split(";")[0] ?? "").trim().toLowerCase();
}

/**
 * A body sent as anything but JSON is refused with ContentTypeNotSupportedError (HTTP+JSON: 415). A
 * request without `Content-Type` is read as JSON: many clients leave it out.
 */
export function contentTypeRefusal(request: A2AHandlerRequest): ContentTypeNotSupportedError | undefined {
  const sent = request.headers.get("content-type");
  if (sent === null || sent.trim() === "" || READABLE.has(essence(sent))) return undefined;
  return new ContentTypeNotSupportedError(
    `The body's Content-Type ${essence(sent).slice(0, 100)} is not supported; send ${A2A_MEDIA_TYPE} or application/json`,
    { contentType: essence(sent).slice(0, 100), supportedContentTypes: [...READABLE] },
  );
}

/** Whether the client speaks A2A's media type (it sent or accepts it): then the answers are labelled so. */
export function asksA2AMediaType(request: A2AHandlerRequest): boolean {
  const sent = request.headers.get("content-type");
  if (sent !== null && essence(sent) === A2A_MEDIA_TYPE) return true;
  const accept = request.headers.get("accept");
  return accept?.split(",").some((range) => essence(range) === A2A_MEDIA_TYPE) ?? false;
}

/** A JSON answer labelled `application/a2a+json` (an SSE stream keeps `text/event-stream`). */
export function labelledA2A(response: A2AHandlerResponse): A2AHandlerResponse {
  if (response.kind !== "json") return response;
  return { ...response, headers: { ...response.headers, "content-type": `${A2A_MEDIA_TYPE}; charset=utf-8` } };
}
