import { openDatabase } from "@a2a-partner/postgres-store";
import { runPushDispatchWorker } from "@a2a-partner/postgres-store/dispatch-thread";

/** What push-dispatch-thread.test.ts starts its threads with. */
export interface FixtureData {
  url: string;
  schema: string;
  secret: string;
  /** `throw` makes the setup fail, as a thread whose database is away would. */
  fail?: boolean;
}

// A PushDispatchThread's worker module as an embedder writes one: its own pool on the test's schema, a
// fixed signing secret, the runtime's fetch (the receiver is on loopback, which the default guard refuses).
await runPushDispatchWorker(async (data: FixtureData) => {
  if (data.fail) throw new Error("the fixture's setup failed on purpose");
  const db = await openDatabase({ url: data.url, pool: { max: 2, options: `-c search_path=${data.schema}` } });
  const lines: string[] = [];
  const logger = {
    info: (_obj: object, msg?: string) => void lines.push(msg ?? ""),
    warn: (_obj: object, msg?: string) => void lines.push(msg ?? ""),
    error: (_obj: object, msg?: string) => void lines.push(msg ?? ""),
  };
  return {
    db,
    logger,
    push: { signingSecrets: async () => [data.secret] },
    close: () => db.close(),
  };
});
