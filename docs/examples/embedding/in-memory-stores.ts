// #region snippet
import { createInMemoryStores } from "@a2a-partner/a2a-core";

const stores = createInMemoryStores();

// #endregion snippet

export { stores };
