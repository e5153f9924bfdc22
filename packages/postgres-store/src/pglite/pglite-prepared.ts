import type { PGliteInterface, Results } from "@electric-sql/pglite";

type PGliteModule = typeof import("@electric-sql/pglite");
type Serializer = (value: unknown) => string;
type Parser = (text: string, typeId?: number) => unknown;
type BackendMessage = Parameters<PGliteModule["parse"]["parseResults"]>[0][number];

/**
 * What the prepared path needs of a PGlite instance beyond `PGliteInterface`: the `PGlite` class has all
 * of it (its own `query` is built from these), other implementations (a worker proxy) may not, and then
 * statements run through `query` as before.
 */
interface PGliteInternals {
  serializers: Record<number | string, Serializer>;
  parsers: Record<number | string, Parser>;
  execProtocolStream(message: Uint8Array, options?: { syncToFs?: boolean }): Promise<BackendMessage[]>;
  syncToFs(): Promise<void>;
  _runExclusiveQuery<T>(fn: () => Promise<T>): Promise<T>;
  _runExclusiveTransaction<T>(fn: () => Promise<T>): Promise<T>;
}

function hasInternals(instance: PGliteInterface): instance is PGliteInterface & PGliteInternals {
  const candidate = instance as Partial<PGliteInternals>;
  return (
    typeof candidate.execProtocolStream === "function" &&
    typeof candidate.syncToFs === "function" &&
    typeof candidate._runExclusiveQuery === "function" &&
    typeof candidate._runExclusiveTransaction === "function" &&
    typeof candidate.serializers === "object" &&
    typeof candidate.parsers === "object"
  );
}

interface Prepared {
  sql: string;
  /** The parameter types PostgreSQL inferred when it parsed the statement. */
  paramTypes: number[];
  /**
   * A query's columns (undefined: it returns no rows), described once with the statement: PostgreSQL
   * checks a query's result shape before each execution and refuses one that changed, so its executions
   * need no Describe of their own. Null for any other statement (`FETCH`, `EXECUTE` …): its columns are
   * those of what it reads at the time, described at each execution.
   */
  rowDescription: BackendMessage | undefined | null;
}

/**
 * Statements whose result shape PostgreSQL checks before each execution: a query, after any leading
 * whitespace and comments (a comment holding another, which PostgreSQL nests, is not recognised).
 * Anything not recognised is described at each execution, which is always right.
 */
const CHECKED_RESULT_SHAPE =
  /^(?:\s|--[^\n]*(?:\n|$)|\/\*(?:[^*/]|\*(?!\/)|\/(?!\*))*\*\/)*(?:select|insert|update|delete|merge|with|values|table)\b/i;

/**
 * Named statements on PGlite. PGlite's `query` parses, describes and plans its statement on every call,
 * which in WASM is about half of what a task start costs (0.75–0.90 ms against 0.40 ms prepared). Here a
 * statement with a name is parsed once on PGlite's one connection and then only bound and executed, the
 * way `pg` treats named statements on PostgreSQL. Everything else is what PGlite's own `query` does: the
 * same locks (so nothing runs inside another caller's transaction), the same serializers and parsers,
 * a Sync whatever happens, and the data directory synced after the statement.
 */
export class PGlitePreparedStatements {
  /** One per instance: named statements belong to PGlite's one connection, however many wrappers share it. */
  private static readonly byInstance = new WeakMap<object, PGlitePreparedStatements>();
  private readonly prepared = new Map<string, Prepared>();
  /** Names this path stays away from: a statement of that name was already there, made by someone else. */
  private readonly foreign = new Set<string>();
  private module: Promise<PGliteModule> | undefined;

  private constructor(private readonly instance: PGliteInterface & PGliteInternals) {}

  /** Undefined when the instance does not expose what the prepared path needs. */
  static for(instance: PGliteInterface): PGlitePreparedStatements | undefined {
    if (!hasInternals(instance)) return undefined;
    let statements = PGlitePreparedStatements.byInstance.get(instance);
    if (!statements) {
      statements = new PGlitePreparedStatements(instance);
      PGlitePreparedStatements.byInstance.set(instance, statements);
    }
    return statements;
  }

  /**
   * The statement's result; undefined when this path cannot run it under that name (the name stands for
   * another SQL text, or for a statement someone else prepared): the caller then runs it unnamed.
   */
  async query<Row>(name: string, sql: string, params: readonly unknown[]): Promise<Results<Row> | undefined> {
    const known = this.prepared.get(name);
    if ((known && known.sql !== sql) || this.foreign.has(name)) return undefined;
    try {
      return await this.run<Row>(name, sql, params);
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      // 42P05: a statement of this name already existed (prepared by other code on this connection).
      if (code === "42P05") {
        this.foreign.add(name);
        return undefined;
      }
      // 26000: ours is gone (DEALLOCATE or DISCARD ran on the connection): prepared again, once.
      if (code === "26000") {
        this.prepared.delete(name);
        return this.run<Row>(name, sql, params);
      }
      throw error;
    }
  }

  private async run<Row>(name: string, sql: string, params: readonly unknown[]): Promise<Results<Row>> {
    // Once: the module (already loaded, the instance came from it; imported here so the package loads no
    // driver it is not given) and the instance ready, which PGlite's own query waits for too.
    this.module ??= Promise.all([import("@electric-sql/pglite"), this.instance.waitReady]).then(([module]) => module);
    const { protocol, parse } = await this.module;
    const { serialize } = protocol;
    const instance = this.instance;
    const send = (message: Uint8Array) => instance.execProtocolStream(message, { syncToFs: false });
    return instance._runExclusiveTransaction(() =>
      instance._runExclusiveQuery(async () => {
        const messages: BackendMessage[] = [];
        try {
          let statement = this.prepared.get(name);
          if (!statement) {
            await send(serialize.parse({ name, text: sql }));
            const described = await send(serialize.describe({ type: "S", name }));
            statement = {
              sql,
              paramTypes: parse.parseDescribeStatementResults(described),
              rowDescription: CHECKED_RESULT_SHAPE.test(sql)
                ? described.find((message) => message.name === "rowDescription")
                : null,
            };
            this.prepared.set(name, statement);
          }
          const { paramTypes, rowDescription } = statement;
          const values = params.map((value, i) => {
            if (value === null || value === undefined) return null;
            const serializer = instance.serializers[paramTypes[i] as number];
            return serializer ? serializer(value) : String(value);
          });
          messages.push(...(await send(serialize.bind({ statement: name, values }))));
          // The result parser takes the columns from the row description ahead of the rows.
          if (rowDescription === null) messages.push(...(await send(serialize.describe({ type: "P" }))));
          else if (rowDescription) messages.push(rowDescription);
          messages.push(...(await send(serialize.execute({}))));
        } finally {
          messages.push(...(await send(serialize.sync())));
        }
        await instance.syncToFs();
        // Never undefined: the caller would take that for "not run" and run the statement a second time.
        const [result] = parse.parseResults(messages, instance.parsers) as Results<Row>[];
        return result ?? { rows: [], fields: [] };
      }),
    );
  }
}
