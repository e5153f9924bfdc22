import type { SseSink } from "../../ports/handler-response.js";
import type { TaskRecord } from "../../ports/task-records.js";
import type { SerialisedEvent, StreamRenderer } from "../../protocol/dialect/dialect.js";
import type { Message, TaskEventResult } from "../../protocol/schemas/a2a.js";
import { BARE_FRAMES } from "../hub/live-event.js";
import type { TaskHub } from "../hub/task-hub.js";
import { OFF_THE_TICK, TaskSubscription } from "../streams/task-subscription.js";

const NO_SINK: SseSink = { write() {}, backlog: 0, end() {}, abort() {} };
const NO_BACKLOG = { maxBytes: Number.POSITIVE_INFINITY, hardMaxBytes: Number.POSITIVE_INFINITY };

/**
 * The caller's follow-up messages to a task this process runs, in the order the log has them. A
 * follow-up is written to the log by whichever instance received it (see continueTask); this watches
 * the task's feed from the executor's first `nextMessage()` on, so each one reaches the execution once.
 * Made only for executors that ask: most tasks never hold one.
 */
export class FollowUps {
  private readonly arrived: Message[] = [];
  private waiting: { resolve(message: Message): void; reject(reason: unknown): void } | undefined;
  private readonly subscription: TaskSubscription;

  constructor(
    hub: TaskHub,
    record: TaskRecord,
    /** Messages after this sequence number are handed over (the task's last question, or its start). */
    afterSeq: number,
    private readonly signal: AbortSignal,
  ) {
    const renderer: StreamRenderer = {
      taskJson: () => "",
      messageJson: () => "",
      eventJson: (event: SerialisedEvent) => {
        this.take(event.result);
        return "";
      },
    };
    this.subscription = new TaskSubscription(
      record.task.id,
      BARE_FRAMES,
      NO_SINK,
      NO_BACKLOG,
      afterSeq,
      OFF_THE_TICK,
      (ended) => hub.unsubscribe(ended),
      renderer,
    );
    signal.addEventListener("abort", () => this.close(), { once: true });
    hub.subscribe(record, this.subscription);
  }

  /** The next follow-up not yet handed over; rejects once the task's signal aborts. */
  next(): Promise<Message> {
    const message = this.arrived.shift();
    if (message) return Promise.resolve(message);
    if (this.signal.aborted) return Promise.reject(this.signal.reason);
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
    });
  }

  close(): void {
    this.subscription.end();
    this.waiting?.reject(this.signal.reason ?? new Error("the task's execution ended"));
    this.waiting = undefined;
  }

  private take(result: TaskEventResult): void {
    if (!("statusUpdate" in result)) return;
    const { message } = result.statusUpdate.status;
    if (message?.role !== "ROLE_USER") return;
    const waiting = this.waiting;
    this.waiting = undefined;
    if (waiting) waiting.resolve(message);
    else this.arrived.push(message);
  }
}
