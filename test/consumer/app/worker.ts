// docs/embedding.md's embedding as a Cloudflare Worker (module syntax), bundled as wrangler would.
import { serve } from "./embedding.mts";

export default { fetch: serve };
