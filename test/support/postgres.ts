import { connect } from "node:net";

/**
 * Test set-up every package shares: which real PostgreSQL the suites use, and whether they run on it.
 * (No driver here, so any package's tests can import it.)
 */

/** The real PostgreSQL the suites also run on (docs/architecture.md: real parts, not mocks). */
export const POSTGRES_URL = process.env.DATABASE_URL_TEST ?? "postgres://postgres@127.0.0.1:5432/test";

/**
 * Whether the PostgreSQL suites run: always under CI (an unreachable server then fails them instead of
 * skipping them), elsewhere when a server answers at POSTGRES_URL's host and port within 2 s.
 */
export async function postgresAvailable(): Promise<boolean> {
  if (process.env.CI === "true") return true;
  const url = new URL(POSTGRES_URL);
  const port = Number(url.port || 5432);
  return new Promise((resolve) => {
    const socket = connect({ host: url.hostname || "127.0.0.1", port, timeout: 2_000 });
    const answer = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.once("connect", () => answer(true));
    socket.once("timeout", () => answer(false));
    socket.once("error", () => answer(false));
  });
}
