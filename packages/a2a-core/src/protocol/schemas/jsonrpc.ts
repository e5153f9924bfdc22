import { z } from "zod";

/** A JSON-RPC 2.0 request id. The contract sends strings; numbers are accepted as JSON-RPC allows. */
export const JsonRpcId = z.union([z.string(), z.number()]);
export type JsonRpcId = z.infer<typeof JsonRpcId>;

/** The request envelope, before its params are checked against the method. */
export const JsonRpcRequest = z.object({
  jsonrpc: z.literal("2.0"),
  id: JsonRpcId,
  method: z.string(),
  params: z.record(z.string(), z.unknown()).optional(),
});
export type JsonRpcRequest = z.infer<typeof JsonRpcRequest>;

export const JsonRpcErrorObject = z.object({
  code: z.number().int(),
  message: z.string(),
  data: z.unknown().optional(),
});
export type JsonRpcErrorObject = z.infer<typeof JsonRpcErrorObject>;

/** What every response carries: the version, and the id of its request (null when it could not be read). */
const RESPONSE_ENVELOPE = { jsonrpc: z.literal("2.0"), id: JsonRpcId.nullable() };

export const JsonRpcErrorResponse = z.object({ ...RESPONSE_ENVELOPE, error: JsonRpcErrorObject });
export type JsonRpcErrorResponse = z.infer<typeof JsonRpcErrorResponse>;

export const JsonRpcSuccessResponse = z.object({ ...RESPONSE_ENVELOPE, result: z.unknown() });
export type JsonRpcSuccessResponse = z.infer<typeof JsonRpcSuccessResponse>;

export const JsonRpcResponse = z.union([JsonRpcSuccessResponse, JsonRpcErrorResponse]);
export type JsonRpcResponse = z.infer<typeof JsonRpcResponse>;
