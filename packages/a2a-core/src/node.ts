/** Node-only entry (`@a2a-partner/a2a-core/node`): the node:http / Express adapter. The root entry stays runtime-neutral. */

export type { NodeHandler, NodeHandlerOptions } from "./adapters/node.js";
export { toNodeHandler } from "./adapters/node.js";
