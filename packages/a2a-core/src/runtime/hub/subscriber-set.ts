/**
 * The streams of one task: nearly always one, so it is held as a plain field, and a Set is made only
 * when a second joins. A Set costs ~0.2 KiB even empty (its hash table), and a feed lives as long as
 * its task runs, for every running task.
 */
export class SubscriberSet<T> {
  private one: T | undefined;
  private many: Set<T> | undefined;

  get size(): number {
    if (this.many) return this.many.size;
    return this.one === undefined ? 0 : 1;
  }

  add(member: T): void {
    if (this.many) {
      this.many.add(member);
    } else if (this.one === undefined || this.one === member) {
      this.one = member;
    } else {
      this.many = new Set([this.one, member]);
      this.one = undefined;
    }
  }

  delete(member: T): boolean {
    if (this.many) return this.many.delete(member);
    if (this.one !== member) return false;
    this.one = undefined;
    return true;
  }

  clear(): void {
    this.one = undefined;
    this.many = undefined;
  }

  /** A copy: safe to go through while members leave (a delivery may end a stream). */
  toArray(): T[] {
    if (this.many) return [...this.many];
    return this.one === undefined ? [] : [this.one];
  }

  some(predicate: (member: T) => boolean): boolean {
    if (this.many) {
      for (const member of this.many) if (predicate(member)) return true;
      return false;
    }
    return this.one !== undefined && predicate(this.one);
  }
}
