/** A setting the server refuses to run with; the CLI exits with EXIT_CODES.config and the message. */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
}
