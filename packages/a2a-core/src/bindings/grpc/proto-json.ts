import { type DescMessage, fromBinary, fromJson, type JsonValue, toBinary, toJson } from "@bufbuild/protobuf";
import { InvalidRequestError } from "../../protocol/errors.js";
import { binaryOfJson } from "./json-to-binary.js";

/**
 * The gRPC binding's one crossing between protobuf and the v1.0 JSON the methods read and answer: a2a.proto
 * is what the v1.0 JSON shapes are the ProtoJSON of, so a request message becomes exactly the params an
 * HTTP+JSON body would carry, and an answer's JSON becomes its response message.
 */

/** A request message's bytes → its ProtoJSON, the method's v1.0 params; bytes that are not one: -32600. */
export function paramsOfMessage(schema: DescMessage, bytes: Uint8Array): Record<string, unknown> {
  let json: JsonValue;
  try {
    json = toJson(schema, fromBinary(schema, bytes));
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new InvalidRequestError(`The request is not a valid ${schema.typeName}: ${reason}`);
  }
  return typeof json === "object" && json !== null && !Array.isArray(json) ? json : {};
}

/**
 * An answer's v1.0 JSON → its response message's bytes. Fields the message has no place for (an agent
 * card's extension fields of another version) are left out: the wire cannot carry them. Written straight
 * from the JSON (json-to-binary.ts) when it can be, else through protobuf-es: the same bytes either way.
 */
export function messageOfJson(schema: DescMessage, json: unknown): Uint8Array {
  return (
    binaryOfJson(schema, json) ?? toBinary(schema, fromJson(schema, json as JsonValue, { ignoreUnknownFields: true }))
  );
}
