/** Fields whose values are free-form (google.protobuf.Struct / Value): their keys are the sender's own. */
const FREE_FORM = new Set(["metadata", "data", "params", "header"]);

/**
 * v1.0 params with proto field names (`task_id`, `history_length`) under their JSON names (`taskId`,
 * `historyLength`): ProtoJSON parsers accept both spellings, and generic clients send either. A JSON name
 * present wins over the proto name of the same field. Free-form fields (metadata, a data part) are kept
 * as they are.
 */
export function withJsonFieldNames(value: Record<string, unknown>): Record<string, unknown> {
  // Walked without copying first: almost every request uses the JSON names and is returned as it came.
  return hasProtoName(value) ? renamed(value) : value;
}

function renamed(value: Record<string, unknown>): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    const name = key.includes("_") ? toLowerCamel(key) : key;
    if (name !== key && Object.hasOwn(value, name)) continue;
    copy[name] = FREE_FORM.has(name) ? field : renameNested(field);
  }
  return copy;
}

function renameNested(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(renameNested);
  if (isObject(value)) return renamed(value);
  return value;
}

function hasProtoName(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(hasProtoName);
  if (!isObject(value)) return false;
  for (const key in value) {
    if (key.includes("_")) return true;
    if (!FREE_FORM.has(key) && hasProtoName(value[key])) return true;
  }
  return false;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function toLowerCamel(name: string): string {
  return name.replace(/_([a-z0-9])/g, (_match, letter: string) => letter.toUpperCase());
}
