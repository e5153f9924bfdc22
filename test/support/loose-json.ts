/**
 * A JSON answer as tests read it: field by field, each field asserted where it is read. With `unknown`
 * every test would narrow each field before asserting it, which the assertion itself already does.
 */
// biome-ignore lint/suspicious/noExplicitAny: tests assert JSON answers field by field
export type LooseJson = any;
