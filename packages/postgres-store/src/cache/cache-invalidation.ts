import type { Database } from "../database.js";
import { RetriedListen } from "./retried-listen.js";

/** Options of `CacheInvalidation`. */
export interface CacheInvalidationOptions {
  /**
   * The channel your tables' triggers NOTIFY on when they commit a change, with the table's name as the
   * payload (`perform pg_notify('<channel>', tg_table_name)`; see the README).
   */
  channel: string;
  /** How long to wait before trying LISTEN again when it could not start. Default 5000 ms. */
  retryMs?: number;
  /** LISTEN could not start (it is tried again after `retryMs`); meanwhile every lookup goes to the database. */
  onUnavailable?: (error: unknown) => void;
}

/**
 * Tells the in-memory caches of this process when a table they copy from changes, in any process. A
 * cache may serve from memory only while `trusted`: LISTEN is up, so no change can pass unannounced.
 * When the listening connection drops, every cache is cleared and bypassed until it is back.
 */
export class CacheInvalidation {
  private readonly clearers = new Map<string, Set<() => void>>();
  private listening = false;
  private readonly feed: RetriedListen;

  constructor(db: Database, options: CacheInvalidationOptions) {
    const events = {
      onLost: () => {
        this.listening = false;
        this.clearAll();
      },
      onReconnect: () => {
        // Whatever changed while nobody listened is unknown: start from empty.
        this.clearAll();
        this.listening = true;
      },
    };
    this.feed = new RetriedListen(
      db,
      options,
      (table) => this.clear(table),
      events,
      () => {
        this.listening = true;
      },
    );
  }

  /** Whether caches may answer now. */
  get trusted(): boolean {
    return this.listening;
  }

  /**
   * Starts listening. Until it works caches stay bypassed (the store answers every lookup), and it is
   * tried again every `retryMs`.
   */
  start(): Promise<void> {
    return this.feed.start();
  }

  /** Registers what to drop when `table` changes. */
  onChange(table: string, clear: () => void): void {
    let set = this.clearers.get(table);
    if (!set) {
      set = new Set();
      this.clearers.set(table, set);
    }
    set.add(clear);
  }

  /** Stops listening and empties every cache: from now on they answer nothing. */
  async close(): Promise<void> {
    const stopped = this.feed.close();
    this.listening = false;
    this.clearAll();
    await stopped;
  }

  private clear(table: string): void {
    for (const clear of this.clearers.get(table) ?? []) clear();
  }

  private clearAll(): void {
    for (const set of this.clearers.values()) for (const clear of set) clear();
  }
}

/**
 * A bounded map that answers only while the invalidation feed is trusted, and empties itself when its
 * table changes. Values must be treated as read-only.
 */
export class InvalidatedCache<V> {
  private readonly entries = new Map<string, V>();
  /** Grows with every clear; a read that began before a clear must not be remembered after it. */
  private generation = 0;
  private readonly invalidation: CacheInvalidation;
  private readonly capacity: number;

  constructor(invalidation: CacheInvalidation, tables: readonly string[], capacity: number) {
    this.invalidation = invalidation;
    this.capacity = capacity;
    for (const table of tables) {
      invalidation.onChange(table, () => {
        this.generation++;
        this.entries.clear();
      });
    }
  }

  /** The cached value, or a ticket to remember what the database answers (see `remember`). */
  get(key: string): V | undefined {
    if (!this.invalidation.trusted) return undefined;
    return this.entries.get(key);
  }

  /** Taken before reading the database; pass it to `remember`. Undefined: do not remember anything. */
  ticket(): number | undefined {
    return this.invalidation.trusted ? this.generation : undefined;
  }

  /**
   * Remembers a value read from the database, unless the table changed (or the feed dropped) since
   * `ticket` was taken: then the value may predate the change and is not kept.
   */
  remember(key: string, value: V, ticket: number | undefined): void {
    if (ticket === undefined || ticket !== this.generation || !this.invalidation.trusted) return;
    if (this.entries.size >= this.capacity) this.entries.clear();
    this.entries.set(key, value);
  }

  /**
   * `get`, `ticket` and `remember` in one: the cached value of `key` while `fresh(value)` holds (default:
   * always), else what `load` reads from the database, remembered unless the tables changed (or the feed
   * dropped) during the load. An undefined answer is not remembered.
   */
  async lookup<R extends V | undefined>(
    key: string,
    load: () => Promise<R>,
    fresh?: (value: V) => boolean,
  ): Promise<V | R> {
    const cached = this.get(key);
    if (cached !== undefined && (!fresh || fresh(cached))) return cached;
    const ticket = this.ticket();
    const value = await load();
    if (value !== undefined) this.remember(key, value, ticket);
    return value;
  }
}
