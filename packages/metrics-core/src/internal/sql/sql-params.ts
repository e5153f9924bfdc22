/** Collects statement parameters; the same value and type share one `$n`, so sections reuse bounds. */
export class SqlParams {
  readonly values: string[] = [];
  readonly #positions = new Map<string, number>();

  /** A typed placeholder for `value`, e.g. `$2::timestamptz`. The explicit cast keeps PGlite and pg alike. */
  ref(value: string, type: "uuid" | "date" | "timestamp" | "timestamptz"): string {
    const key = `${type}\u0000${value}`;
    let position = this.#positions.get(key);
    if (position === undefined) {
      this.values.push(value);
      position = this.values.length;
      this.#positions.set(key, position);
    }
    return `$${position}::${type}`;
  }
}
