import { type DescField, type DescMessage, ScalarType } from "@bufbuild/protobuf";
import { BinaryWriter, WireType } from "@bufbuild/protobuf/wire";

/**
 * An answer's v1.0 JSON written straight to protobuf binary, walking the message's descriptor, without
 * building the protobuf-es message first (`fromJson` then `toBinary` cost more CPU than the rest of a
 * GetTask). The bytes are the ones `toBinary(fromJson(json, { ignoreUnknownFields }))` writes: fields by
 * number, proto3 defaults left out, map keys and Struct fields in the object's order. It takes only the
 * shapes a2a.proto's answers have (strings, bools, int32, doubles, enums by name, messages, string and
 * message lists, maps, Struct / Value / Timestamp); on anything else it returns undefined and the caller
 * takes the protobuf-es path, which also reports what is wrong.
 */
export function binaryOfJson(schema: DescMessage, json: unknown): Uint8Array | undefined {
  if (!isObject(json)) return undefined;
  const writer = new BinaryWriter();
  try {
    writeFields(writer, schema, json);
  } catch (error) {
    if (error instanceof Unsupported) return undefined;
    throw error;
  }
  return writer.finish();
}

/** A value this encoder leaves to protobuf-es. */
class Unsupported extends Error {}
const unsupported = (): never => {
  throw new Unsupported();
};

// google.protobuf.FeatureSet.FieldPresence.IMPLICIT, as protobuf-es's own writer compares it.
const IMPLICIT = 2;

const sortedFields = new WeakMap<DescMessage, readonly DescField[]>();
const enumNumbers = new WeakMap<DescField, Map<string, number>>();

function fieldsOf(schema: DescMessage): readonly DescField[] {
  let fields = sortedFields.get(schema);
  if (!fields) {
    fields = [...schema.fields].sort((a, b) => a.number - b.number);
    sortedFields.set(schema, fields);
  }
  return fields;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function writeFields(writer: BinaryWriter, schema: DescMessage, json: Record<string, unknown>): void {
  let oneofsSeen: Set<unknown> | undefined;
  for (const field of fieldsOf(schema)) {
    const value = json[field.jsonName] ?? json[field.name];
    if (value === undefined || value === null) {
      // null is "unset" for every field but a google.protobuf.Value, where it is a NullValue.
      if (value === null && field.fieldKind === "message" && field.message.typeName === "google.protobuf.Value") {
        unsupported();
      }
      continue;
    }
    if (field.oneof) {
      // Two members of one oneof: protobuf-es refuses it; let it say so.
      oneofsSeen ??= new Set();
      if (oneofsSeen.has(field.oneof)) unsupported();
      oneofsSeen.add(field.oneof);
    }
    const always = field.oneof !== undefined || field.presence !== IMPLICIT;
    switch (field.fieldKind) {
      case "scalar":
        writeScalar(writer, field.number, field.scalar, value, always);
        break;
      case "enum": {
        const number = enumNumber(field, value);
        if (always || number !== field.enum.values[0]?.number) writer.tag(field.number, WireType.Varint).int32(number);
        break;
      }
      case "message":
        writeMessage(writer, field.number, field.message, value);
        break;
      case "list":
        if (!Array.isArray(value)) unsupported();
        for (const item of value as unknown[]) {
          if (field.listKind === "message") writeMessage(writer, field.number, field.message, item);
          else if (field.listKind === "scalar" && field.scalar === ScalarType.STRING) {
            if (typeof item !== "string") unsupported();
            writer.tag(field.number, WireType.LengthDelimited).string(item as string);
          } else unsupported(); // packed numbers and enums: none in a2a.proto's answers
        }
        break;
      case "map":
        if (!isObject(value) || field.mapKey !== ScalarType.STRING) unsupported();
        for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
          writer.tag(field.number, WireType.LengthDelimited).fork();
          writer.tag(1, WireType.LengthDelimited).string(key);
          if (field.mapKind === "message") writeMessage(writer, 2, field.message, item);
          else if (field.mapKind === "scalar") writeScalar(writer, 2, field.scalar, item, true);
          else unsupported();
          writer.join();
        }
        break;
    }
  }
}

function enumNumber(field: DescField & { fieldKind: "enum" }, value: unknown): number {
  if (typeof value === "number" && Number.isInteger(value)) return value;
  let numbers = enumNumbers.get(field);
  if (!numbers) {
    numbers = new Map(field.enum.values.map((v) => [v.name, v.number]));
    enumNumbers.set(field, numbers);
  }
  const number = typeof value === "string" ? numbers.get(value) : undefined;
  return number ?? unsupported();
}

function writeScalar(writer: BinaryWriter, no: number, type: ScalarType, value: unknown, always: boolean): void {
  switch (type) {
    case ScalarType.STRING:
      if (typeof value !== "string") unsupported();
      if (always || value !== "") writer.tag(no, WireType.LengthDelimited).string(value as string);
      return;
    case ScalarType.BOOL:
      if (typeof value !== "boolean") unsupported();
      if (always || value) writer.tag(no, WireType.Varint).bool(value as boolean);
      return;
    case ScalarType.INT32:
      if (typeof value !== "number" || !Number.isInteger(value) || value > 0x7fffffff || value < -0x80000000) {
        unsupported();
      }
      if (always || value !== 0) writer.tag(no, WireType.Varint).int32(value as number);
      return;
    case ScalarType.DOUBLE:
      if (typeof value !== "number" || !Number.isFinite(value)) unsupported();
      if (always || !Object.is(value, 0)) writer.tag(no, WireType.Bit64).double(value as number);
      return;
    default:
      unsupported(); // bytes (base64), 64-bit integers, floats: protobuf-es's rules
  }
}

function writeMessage(writer: BinaryWriter, no: number, schema: DescMessage, value: unknown): void {
  writer.tag(no, WireType.LengthDelimited).fork();
  switch (schema.typeName) {
    case "google.protobuf.Struct":
      if (!isObject(value)) unsupported();
      writeStructFields(writer, value as Record<string, unknown>);
      break;
    case "google.protobuf.Value":
      writeValue(writer, value);
      break;
    case "google.protobuf.Timestamp":
      writeTimestamp(writer, value);
      break;
    default:
      if (schema.typeName.startsWith("google.protobuf.") || !isObject(value)) unsupported();
      writeFields(writer, schema, value as Record<string, unknown>);
  }
  writer.join();
}

/** google.protobuf.Struct: `map<string, Value> fields = 1`. */
function writeStructFields(writer: BinaryWriter, json: Record<string, unknown>): void {
  for (const [key, item] of Object.entries(json)) {
    writer.tag(1, WireType.LengthDelimited).fork();
    writer.tag(1, WireType.LengthDelimited).string(key);
    writer.tag(2, WireType.LengthDelimited).fork();
    writeValue(writer, item);
    writer.join();
    writer.join();
  }
}

/** google.protobuf.Value's oneof: null 1, number 2, string 3, bool 4, struct 5, list 6. */
function writeValue(writer: BinaryWriter, value: unknown): void {
  if (value === null) writer.tag(1, WireType.Varint).int32(0);
  else if (typeof value === "number") {
    if (!Number.isFinite(value)) unsupported();
    writer.tag(2, WireType.Bit64).double(value);
  } else if (typeof value === "string") writer.tag(3, WireType.LengthDelimited).string(value);
  else if (typeof value === "boolean") writer.tag(4, WireType.Varint).bool(value);
  else if (Array.isArray(value)) {
    writer.tag(6, WireType.LengthDelimited).fork();
    for (const item of value) {
      writer.tag(1, WireType.LengthDelimited).fork();
      writeValue(writer, item);
      writer.join();
    }
    writer.join();
  } else if (isObject(value)) {
    writer.tag(5, WireType.LengthDelimited).fork();
    writeStructFields(writer, value);
    writer.join();
  } else unsupported(); // undefined, functions, bigints: not JSON
}

// RFC 3339 in UTC, as the answers carry it; an offset or a bad date is left to protobuf-es.
const TIMESTAMP = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?Z$/;

/** google.protobuf.Timestamp: `int64 seconds = 1; int32 nanos = 2`, defaults left out. */
function writeTimestamp(writer: BinaryWriter, value: unknown): void {
  const match = typeof value === "string" ? TIMESTAMP.exec(value) : null;
  if (!match) throw new Unsupported();
  const ms = Date.parse(`${match[1]}Z`);
  // protobuf-es's own checks: a date Date.parse reads, from year 0001 to 9999.
  if (Number.isNaN(ms) || ms < -62135596800000 || ms > 253402300799000) unsupported();
  const seconds = ms / 1000;
  const nanos = match[2] ? Number(match[2].padEnd(9, "0")) : 0;
  if (seconds !== 0) writer.tag(1, WireType.Varint).int64(seconds);
  if (nanos !== 0) writer.tag(2, WireType.Varint).int32(nanos);
}
