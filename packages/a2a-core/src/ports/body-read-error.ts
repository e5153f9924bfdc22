/**
 * Why a request body could not be read. The contract between adapters (which read bodies) and bindings
 * (which answer them): `A2AHandlerRequest.body()` rejects with it.
 */
export class BodyReadError extends Error {
  constructor(
    readonly reason: "too-large" | "invalid-utf8",
    message: string,
  ) {
    super(message);
    this.name = "BodyReadError";
  }
}
