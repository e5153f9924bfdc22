/**
 * A mapping of a model object made once and kept on the object itself, under this module's symbol and
 * not enumerable: spread, `Object.assign`, JSON and `structuredClone` leave it behind, so a copy (which
 * may differ from its source) maps afresh. Read on every event of every task, so cheaper than a
 * `WeakMap`: a property load, not a hash lookup, and no ephemeron table for the collector to trace. An
 * object that cannot take it (a compacted message is frozen, on purpose) is mapped each time.
 */
export function keptMapping<O extends object, T>(owner: O, key: symbol, map: (owner: O) => T): T {
  const kept = (owner as Record<symbol, T | undefined>)[key];
  if (kept !== undefined) return kept;
  const mapped = map(owner);
  if (Object.isExtensible(owner)) Object.defineProperty(owner, key, { value: mapped });
  return mapped;
}

/** The mapping `keptMapping` kept on `owner` under `key`, if it made one. */
export function keptMappingOf<T>(owner: object, key: symbol): T | undefined {
  return (owner as Record<symbol, T | undefined>)[key];
}
