import type { CarriedEvents } from "../../ports/event-log.js";
import type { TaskSubscription } from "../streams/task-subscription.js";
import { toLiveEvent } from "./live-event.js";
import type { SubscriberSet } from "./subscriber-set.js";

/**
 * A watched task's streams get the events a change notification carried, with no read of the log, when
 * none of them lacks an event before the first one. A `finished` among them is left to a read, which
 * fetches the ended task for the `final` frame. False: what is left must be read from the log. The
 * caller makes sure no read is under way (its batch may be older than these events; it reads again
 * after) and no stream is joining (it needs a read).
 */
export function deliverCarried(subscribers: SubscriberSet<TaskSubscription>, carried: CarriedEvents): boolean {
  if (subscribers.size === 0 || subscribers.some((subscription) => subscription.cursor < carried.fromSeq - 1)) {
    return false;
  }
  const events = carried.read();
  if (events.length === 0) return false;
  for (const stored of events) {
    if (stored.event === "finished") return false;
    const event = toLiveEvent(stored);
    for (const subscription of subscribers.toArray()) subscription.deliver(event);
  }
  return true;
}
