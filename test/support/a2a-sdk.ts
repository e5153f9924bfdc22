import { Role, type SendMessageRequest, type StreamResponse, TaskState } from "@a2a-js/sdk";
import type { CallInterceptor } from "@a2a-js/sdk/client";

/**
 * What the interop suites (the server's, a2a-core's push-config clients) build with the official A2A JS
 * SDK: a task start in its (v1.0, protobuf-shaped) types, which each transport translates for the wire, a
 * stream read to its end, and the credential on every call.
 */
export function taskStart(text: string, storeId = "store-001"): SendMessageRequest {
  return {
    tenant: "",
    message: {
      messageId: crypto.randomUUID(),
      contextId: "",
      taskId: "",
      role: Role.ROLE_USER,
      parts: [{ content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "" }],
      metadata: undefined,
      extensions: [],
      referenceTaskIds: [],
    },
    configuration: undefined,
    metadata: { storeId },
  };
}

export async function collect(stream: AsyncIterable<StreamResponse>): Promise<StreamResponse[]> {
  const events: StreamResponse[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

/** The credential, added the way the SDK means it to be: through its call-interceptor seam. */
export function bearerInterceptor(token: string): CallInterceptor {
  return {
    async before(args) {
      args.options = {
        ...args.options,
        serviceParameters: { ...args.options?.serviceParameters, Authorization: `Bearer ${token}` },
      };
    },
    async after() {},
  };
}

/** The official client's ListTasks request for one context's tasks: every field it requires, spelt out once. */
export function listContextRequest(contextId: string) {
  return {
    tenant: "",
    contextId,
    status: TaskState.TASK_STATE_UNSPECIFIED,
    pageSize: 10,
    pageToken: "",
    historyLength: undefined,
    statusTimestampAfter: undefined,
    includeArtifacts: undefined,
  };
}
