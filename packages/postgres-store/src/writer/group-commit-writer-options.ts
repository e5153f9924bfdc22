/** Options of `GroupCommitWriter`. */
export interface GroupCommitWriterOptions {
  /**
   * Commits that may be under way at once. Default 1, classic group commit. With one, no item lands in
   * an earlier commit than a row insert or update asked for before it (a task's second event waits for
   * the commit after its first, and later items may pass that one), so a row may refer to a row handed
   * over just before it: a parent row may be handed over and, without waiting, the rows that refer to it
   * (keys are checked at the end of the statement). Rows in one commit are one statement, though, so an
   * update there does not see a row inserted with it: await an insert before updating its row. With more
   * than one, a later item may commit first, and whoever needs one item durable before another must
   * await the first, or its rows can fail on their foreign key on PostgreSQL. The default stays 1 for
   * that order and because a second commit bought little: measured on a 2-core machine with the
   * reference server's workload, 2 in flight +5 % tasks/s for +7 % CPU per task, 4 −6 %
   * (bench/NOTES.md).
   * The exception is a database that runs its statements in the order asked for on a worker thread
   * (`Database.inWorker`): there a later commit cannot overtake an earlier one, and the default is 2,
   * so the worker executes one commit while this thread prepares the next. When a batch fails and its
   * items are committed one by one, a later batch that failed too waits for them; one that succeeded
   * held no row that needed theirs (a row referring to a row it did not find fails its batch).
   */
  maxCommitsInFlight?: number;
}
