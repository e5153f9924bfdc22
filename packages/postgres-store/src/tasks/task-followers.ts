import { randomUUID } from "node:crypto";
import type { Database } from "../database.js";

/**
 * The channel on which a process says which tasks its streams follow while another process may run
 * them: "<announcer> <taskId>[,<taskId>…]". The process that runs such a task carries its events in the
 * commit's notification (task-events-channel.ts); every other task's entry names it only, so the
 * notifications every instance receives stay as small as they were for the tasks nobody follows.
 */
export const TASK_FOLLOWERS_CHANNEL = "a2a_task_followers";

/** A process repeats what it follows this often; another takes a task as followed for the next `FOLLOWED_FOR_MS`. */
const ANNOUNCE_EVERY_MS = 10_000;
const FOLLOWED_FOR_MS = 3.5 * ANNOUNCE_EVERY_MS;
/** Task ids per notification: 36 characters and a comma each, under PostgreSQL's 8,000-byte payload. */
const IDS_PER_NOTIFICATION = 150;

/**
 * One Database's followed tasks, shared by every event log and writer on it in this process: the ones
 * this process follows (announced when they start and every `ANNOUNCE_EVERY_MS`) and the ones other
 * processes announced. Nothing here decides what a stream receives: a commit that does not carry a
 * followed task's events (it had not heard yet, or the announcement was lost) still names the task,
 * and the follower reads the log, as it would without carried events.
 */
export class TaskFollowers {
  private readonly announcer = randomUUID();
  /** Tasks this process follows, and how many of its watchers follow each. */
  private readonly mine = new Map<string, number>();
  /** Tasks other processes follow, and until when (ms since the epoch). */
  private readonly theirs = new Map<string, number>();
  private readonly unannounced = new Set<string>();
  private announcing = false;
  private timer: ReturnType<typeof setInterval> | undefined;
  /** LISTEN, shared by the event logs on the Database that listen, until the last of them closes. */
  private listening: Promise<(() => Promise<void>) | undefined> | undefined;
  private listeners = 0;

  constructor(private readonly db: Database) {}

  /** This process follows `taskId` (lower case) until the returned function is called. */
  follow(taskId: string): () => void {
    const count = this.mine.get(taskId) ?? 0;
    this.mine.set(taskId, count + 1);
    if (count === 0) this.announceSoon(taskId);
    this.start();
    let stopped = false;
    return () => {
      if (stopped) return;
      stopped = true;
      const left = (this.mine.get(taskId) ?? 1) - 1;
      if (left > 0) this.mine.set(taskId, left);
      else this.mine.delete(taskId);
    };
  }

  /** Whether another process has said, lately, that its streams follow `taskId` (any case). */
  followedElsewhere(taskId: string): boolean {
    if (this.theirs.size === 0) return false; // the common case, on every commit: nothing followed
    const until = this.theirs.get(taskId.toLowerCase());
    if (until === undefined) return false;
    if (until > Date.now()) return true;
    this.theirs.delete(taskId.toLowerCase());
    return false;
  }

  /**
   * Hears other processes' announcements until the returned function is called (by every caller: the
   * LISTEN stops with the last). Resolves once LISTEN runs, or could not start: then this process's
   * commits carry no events, and followers elsewhere read the log.
   */
  async listen(): Promise<() => Promise<void>> {
    this.listeners++;
    this.listening ??= this.db
      .listen(TASK_FOLLOWERS_CHANNEL, (payload) => this.heard(payload))
      .catch(() => {
        this.listening = undefined; // the next event log that listens tries again
        return undefined;
      });
    await this.listening;
    let stopped = false;
    return async () => {
      if (stopped) return;
      stopped = true;
      if (--this.listeners > 0) return;
      const stop = await this.listening;
      this.listening = undefined;
      this.theirs.clear();
      await stop?.();
    };
  }

  private heard(payload: string): void {
    const space = payload.indexOf(" ");
    if (space <= 0 || payload.slice(0, space) === this.announcer) return;
    const until = Date.now() + FOLLOWED_FOR_MS;
    for (const taskId of payload.slice(space + 1).split(",")) if (taskId !== "") this.theirs.set(taskId, until);
    this.start(); // forgets them once their announcements stop
  }

  /** Announces `taskId` with whatever else starts being followed in this turn of the event loop. */
  private announceSoon(taskId: string): void {
    this.unannounced.add(taskId);
    if (this.announcing) return;
    this.announcing = true;
    setImmediate(() => {
      this.announcing = false;
      const ids = [...this.unannounced];
      this.unannounced.clear();
      void this.announce(ids);
    });
  }

  /** Repeats what this process follows, and forgets what others stopped announcing, while there is either. */
  private start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      if (this.mine.size === 0 && this.theirs.size === 0) {
        clearInterval(this.timer);
        this.timer = undefined;
        return;
      }
      const now = Date.now();
      for (const [taskId, until] of this.theirs) if (until <= now) this.theirs.delete(taskId);
      void this.announce([...this.mine.keys()]);
    }, ANNOUNCE_EVERY_MS);
    this.timer.unref?.();
  }

  private async announce(ids: readonly string[]): Promise<void> {
    for (let at = 0; at < ids.length; at += IDS_PER_NOTIFICATION) {
      const chunk = ids.slice(at, at + IDS_PER_NOTIFICATION).join(",");
      try {
        await this.db.notify(TASK_FOLLOWERS_CHANNEL, `${this.announcer} ${chunk}`);
      } catch {
        // Unannounced, the task's commits name it only and this process reads its events: slower, not wrong.
        return;
      }
    }
  }
}

const followersByDatabase = new WeakMap<Database, TaskFollowers>();

/** The followed tasks of `db` in this process (one per Database, made at first use). */
export function taskFollowersOf(db: Database): TaskFollowers {
  let followers = followersByDatabase.get(db);
  if (!followers) {
    followers = new TaskFollowers(db);
    followersByDatabase.set(db, followers);
  }
  return followers;
}
