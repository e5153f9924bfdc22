import { createInMemoryStores } from "@a2a-partner/a2a-core";

/** Your stores; the in-memory ones stand for them here. */
export async function openMyStores() {
  return createInMemoryStores();
}
