/**
 * Node-only entry (`@a2a-partner/a2a-core/node`): the node:http / Express adapter, the push SSRF guard
 * that resolves names (`node:dns`) and checks every connection (undici), and `createA2AHandler` /
 * `createPushDispatcher` with that guard as their push defaults. The root entry stays runtime-neutral.
 */

export type { NodeHandler, NodeHandlerOptions } from "./adapters/node.js";
export { toNodeHandler } from "./adapters/node.js";
export { type CardSigning, cardSigningAlgOf, createCardSigning } from "./adapters/node-card-signing/card-signing.js";
export { guardedPushFetch } from "./adapters/node-push/guarded-push-fetch.js";
export { nodePushDestinationCheck } from "./adapters/node-push/node-destination-check.js";
export type {
  NodePushDestinationOptions,
  PushAddressLookup,
  PushResolvedAddress,
} from "./adapters/node-push/resolve-destination.js";
export { createA2AHandler, createPushDispatcher } from "./assembly/node-push-defaults.js";
