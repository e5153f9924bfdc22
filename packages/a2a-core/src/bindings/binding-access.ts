import type { A2AHandlerRequest } from "../ports/handler.js";
import type { A2AHandlerResponse } from "../ports/handler-response.js";
import type { A2ARuntime } from "../runtime/a2a-runtime.js";
import type { Admission } from "../runtime/admission/admission.js";
import { type BindingCodec, bindingPipeline } from "./pipeline.js";

/** The shared pipeline of one handler, for a binding served apart from `handle` (gRPC, on its own port). */
export type PipelineFor = <C>(
  codec: BindingCodec<C>,
) => (request: A2AHandlerRequest, context: C) => Promise<A2AHandlerResponse>;

/**
 * Where a handler keeps its pipeline for another entry (`/grpc`): `Symbol.for`, so a handler made by
 * the root entry's ESM or CJS copy is read by either copy of the other entry.
 */
const BINDING_PIPELINE = Symbol.for("@a2a-partner/a2a-core.binding-pipeline");

/** Gives `handler` its runtime and admission as a pipeline factory, hidden from its public shape. */
export function attachBindingPipeline(handler: object, runtime: A2ARuntime, admission: Admission): void {
  const pipelineFor: PipelineFor = (codec) => bindingPipeline(runtime, admission, codec);
  Object.defineProperty(handler, BINDING_PIPELINE, { value: pipelineFor, enumerable: false });
}

/** The pipeline factory of a handler made by `createA2AHandler`, or undefined for any other object. */
export function pipelineOf(handler: object): PipelineFor | undefined {
  const value = (handler as { [BINDING_PIPELINE]?: unknown })[BINDING_PIPELINE];
  return typeof value === "function" ? (value as PipelineFor) : undefined;
}
