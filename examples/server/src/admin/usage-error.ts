/** A problem with what the operator asked for (not a fault): the CLI exits 2 with the message. */
export class AdminUsageError extends Error {}

/**
 * A well-formed command naming something that does not exist (a workspace, an Environment, a token): the
 * command line was fine, so the CLI exits 1 (failure), not 2 (usage), with the message.
 */
export class AdminNotFoundError extends AdminUsageError {}
