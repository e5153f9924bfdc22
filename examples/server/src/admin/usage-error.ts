/** A problem with what the operator asked for (not a fault): the CLI exits 2 with the message. */
export class AdminUsageError extends Error {}
