/**
 * The handler (and its in-memory stores) the doc snippets take as given. Apart from context.ts because
 * making a handler starts its timers: context.ts stays importable where that is refused at import (workerd).
 */
import { createA2AHandler, createInMemoryStores } from "@a2a-partner/a2a-core";
import { authenticate, executor } from "./context.ts";

export const stores = createInMemoryStores();
export const handler = createA2AHandler({ stores, executor, authenticate });
