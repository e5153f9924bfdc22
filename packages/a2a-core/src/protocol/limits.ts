/**
 * The one table of bounds on what a request may carry. Everything a task start holds is stored and repeated
 * in every `task` frame of its stream, so each field has a bound; past one the answer is -32602 with
 * `error.data.field` naming the field and the limit in the message (the body limit is HTTP 413). Docs
 * (docs/operations.md, docs/protocol.md) and tests read these values instead of repeating them.
 */
export const A2A_LIMITS = {
  /**
   * `message.messageId`, `message.contextId`, `message.taskId`, `metadata.storeId` and the task `id` of
   * GetTask / CancelTask / SubscribeToTask: characters (UTF-16 code units).
   */
  idLength: 256,
  /** The JSON-RPC `id` when it is a string: characters. A longer one is -32600 with `id: null`. */
  requestIdLength: 1024,
  /** The task's text: every text part of the message together, in UTF-8 bytes. */
  textBytes: 16 * 1024,
  /** Parts in one message. */
  parts: 32,
  /**
   * All metadata of one request together (`params.metadata`, `message.metadata` and every part's
   * `metadata`), serialized as JSON, in UTF-8 bytes.
   */
  metadataBytes: 16 * 1024,
  /** The content of every file and data part of a message together (`file`, `data`) as JSON, in UTF-8 bytes. */
  partContentBytes: 16 * 1024,
  /** Arrays and objects nested deeper than this are refused before the body is parsed (-32600). */
  nestingDepth: 64,
  /**
   * The request body, in bytes (HTTP 413 past it): the largest valid request with margin. At their bounds,
   * and with every character written in its longest JSON form (`\u0001` is 6 bytes for 1 byte of text,
   * `\u00e9` 6 for 2), text is at most 6 × 16 KiB, metadata and part content 3 × 16 KiB each, and the ids,
   * part wrappers and envelope under 16 KiB: about 210 KiB in all.
   */
  maxBodyBytes: 256 * 1024,
  /**
   * ListTasks' `totalSize` counts matching tasks up to this many and then stops: past it, `totalSize` is
   * this number, read as "at least". Counting every match on every page cost time in proportion to the
   * workspace's history; the pages themselves (keyset) are never bounded by it.
   */
  listTotalSize: 10_000,
  /** Push configs one task may have; one more is -32602. */
  pushConfigsPerTask: 10,
  /** A push config's `url`: characters. */
  pushUrlLength: 2048,
  /** A push config's `token` and its `authentication.credentials`: characters each. */
  pushSecretLength: 4096,
} as const;

export type A2ALimits = typeof A2A_LIMITS;
