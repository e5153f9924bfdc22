import type { Client } from "pg";
import { quoteChannel } from "../database.js";
import { safely } from "../safely.js";

interface Subscriber {
  onPayload: (payload: string) => void;
  onReconnect: (() => void) | undefined;
  onLost: (() => void) | undefined;
}

interface Channel {
  subscribers: Set<Subscriber>;
  /** Settles once LISTEN for this channel ran on the current connection. */
  ready: Promise<void>;
}

const FIRST_RETRY_MS = 100;
/** Between two probes of the idle listening connection; an unanswered probe means it is gone. */
const HEARTBEAT_MS = 10_000;
const MAX_RETRY_MS = 5_000;
/** Attempts that `reconnectSoon` starts are at least this far apart. */
const SOON_MIN_INTERVAL_MS = 1_000;

/**
 * One dedicated connection that LISTENs on behalf of every subscriber of one Database. When the
 * connection drops it reconnects with capped exponential backoff, LISTENs again on every channel, and
 * tells subscribers (`onReconnect`) so they can re-read what a lost notification would have announced.
 */
export class PgListener {
  private readonly channels = new Map<string, Channel>();
  private client: Client | undefined;
  private connecting: Promise<Client> | undefined;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private attempt = 0;
  private lastAttemptAt = Number.NEGATIVE_INFINITY;
  private closed = false;

  private heartbeat: ReturnType<typeof setInterval> | undefined;
  /** The last statement asked of each connection (see `query`). */
  private readonly tails = new WeakMap<Client, Promise<unknown>>();

  /**
   * `heartbeatMs`: how often the idle listening connection is asked a trivial query. A connection that
   * died without a reset (a NAT or firewall dropping it, a failover) gives no error event; whoever
   * trusts notifications (the caches, the streams) would otherwise trust a silent connection for hours.
   */
  constructor(
    private readonly createClient: () => Client,
    private readonly heartbeatMs = HEARTBEAT_MS,
  ) {}

  async listen(
    channel: string,
    onPayload: (payload: string) => void,
    onReconnect?: () => void,
    onLost?: () => void,
  ): Promise<() => Promise<void>> {
    const quoted = quoteChannel(channel);
    if (this.closed) throw new Error("the database is closed");
    const subscriber: Subscriber = { onPayload, onReconnect, onLost };
    let entry = this.channels.get(channel);
    if (!entry) {
      const created: Channel = { subscribers: new Set(), ready: Promise.resolve() };
      created.ready = this.connection().then(async (client) => {
        await this.query(client, `LISTEN ${quoted}`);
      });
      // A failed first LISTEN forgets the channel, so the next listen() tries again from scratch.
      created.ready.catch(() => {
        if (this.channels.get(channel) === created && created.subscribers.size === 0) this.channels.delete(channel);
      });
      this.channels.set(channel, created);
      entry = created;
    }
    const current = entry;
    current.subscribers.add(subscriber);
    try {
      await current.ready;
    } catch (error) {
      current.subscribers.delete(subscriber);
      if (current.subscribers.size === 0 && this.channels.get(channel) === current) this.channels.delete(channel);
      throw error;
    }
    let stopped = false;
    return async () => {
      if (stopped) return;
      stopped = true;
      current.subscribers.delete(subscriber);
      if (current.subscribers.size > 0 || this.channels.get(channel) !== current) return;
      this.channels.delete(channel);
      // Best effort: a dropped connection has forgotten the LISTEN anyway.
      const client = this.client;
      if (client) await this.query(client, `UNLISTEN ${quoted}`).catch(() => undefined);
    };
  }

  /**
   * A hint that the database answers again (another connection just worked): while waiting out the
   * backoff before the next reconnect, try now. Without it, wake-ups could stay off for up to
   * MAX_RETRY_MS after an outage ends. At most one such attempt per second, so a LISTEN that keeps
   * failing while queries work does not become a connection storm.
   */
  reconnectSoon(): void {
    if (!this.retryTimer || this.closed) return;
    if (Date.now() - this.lastAttemptAt < SOON_MIN_INTERVAL_MS) return;
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    this.reconnectNow();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.channels.clear();
    clearInterval(this.heartbeat);
    if (this.retryTimer) clearTimeout(this.retryTimer);
    const client = this.client ?? (await this.connecting?.catch(() => undefined));
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  /**
   * One statement at a time on a connection, in the order asked: pg queues overlapping ones itself but
   * deprecates it (pg@9 drops it), and LISTENs of several channels, UNLISTENs and the heartbeat overlap.
   * Per connection, so a statement stuck on a dead one never holds up the next connection's.
   */
  private query(client: Client, sql: string): Promise<unknown> {
    const previous = this.tails.get(client) ?? Promise.resolve();
    const run = previous.then(() => client.query(sql));
    this.tails.set(
      client,
      run.catch(() => undefined),
    );
    return run;
  }

  private connection(): Promise<Client> {
    if (this.client) return Promise.resolve(this.client);
    this.connecting ??= this.open().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private async open(): Promise<Client> {
    const client = this.createClient();
    // Handlers go on before connect: an unhandled 'error' event would take the whole process down.
    client.on("error", () => this.lost(client));
    client.on("end", () => this.lost(client));
    client.on("notification", (message) => {
      if (this.client === client) this.dispatch(message.channel, message.payload ?? "");
    });
    try {
      await client.connect();
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      throw new Error("the database is closed");
    }
    this.client = client;
    this.attempt = 0;
    this.startHeartbeat(client);
    return client;
  }

  /** Asks the listening connection `select 1` every heartbeatMs; no answer within it counts as lost. */
  private startHeartbeat(client: Client): void {
    clearInterval(this.heartbeat);
    let pending = false;
    this.heartbeat = setInterval(() => {
      if (this.client !== client) return;
      if (pending) {
        // The previous probe never came back: the connection is dead even though nothing said so.
        this.lost(client);
        return;
      }
      pending = true;
      this.query(client, "select 1").then(
        () => {
          pending = false;
        },
        () => this.lost(client),
      );
    }, this.heartbeatMs);
    this.heartbeat.unref?.();
  }

  private lost(client: Client): void {
    if (this.client !== client) return; // failures while opening are handled by open() itself
    clearInterval(this.heartbeat);
    this.heartbeat = undefined;
    this.client = undefined;
    client.end().catch(() => undefined);
    // Until LISTEN runs again, notifications are missed: whoever trusts them must stop doing so now.
    for (const entry of this.channels.values()) {
      for (const subscriber of entry.subscribers) safely(subscriber.onLost);
    }
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.closed || this.channels.size === 0 || this.retryTimer) return;
    const delay = Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** this.attempt);
    this.attempt += 1;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.reconnectNow();
    }, delay);
    // Reconnecting alone should not keep a process alive that has nothing else to do.
    this.retryTimer.unref?.();
  }

  private reconnectNow(): void {
    this.lastAttemptAt = Date.now();
    this.relisten().then(
      () => this.reconnected(),
      () => this.scheduleReconnect(),
    );
  }

  /** Connects and LISTENs again on every channel; a connection that cannot LISTEN is given up. */
  private async relisten(): Promise<void> {
    const client = await this.connection();
    try {
      for (const name of this.channels.keys()) await this.query(client, `LISTEN ${quoteChannel(name)}`);
    } catch (error) {
      if (this.client === client) this.client = undefined;
      await client.end().catch(() => undefined);
      throw error;
    }
  }

  private reconnected(): void {
    for (const entry of this.channels.values()) {
      for (const subscriber of entry.subscribers) safely(subscriber.onReconnect);
    }
  }

  private dispatch(channel: string, payload: string): void {
    const entry = this.channels.get(channel);
    if (!entry) return;
    for (const subscriber of entry.subscribers) safely(() => subscriber.onPayload(payload));
  }
}
