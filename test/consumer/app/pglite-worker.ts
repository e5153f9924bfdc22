// postgres-store's embedded PGlite in a Cloudflare Worker: what a user who tries it gets.
import { openDatabase } from "@a2a-partner/postgres-store";

export default {
  async fetch(): Promise<Response> {
    try {
      const db = await openDatabase({ dataDir: "memory://", worker: false });
      await db.close();
      return new Response("opened");
    } catch (error) {
      return new Response(String(error), { status: 500 });
    }
  },
};
