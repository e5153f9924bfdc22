import { describe, expect, it } from "vitest";
import { LISTEN_SESSIONS, sessionStartup } from "./session-options.js";

describe("sessionStartup", () => {
  it("adds the store's settings to the options given, leaving the connection string alone", () => {
    expect(sessionStartup("postgres://a2a@db:5432/a2a", "-c search_path=s1", LISTEN_SESSIONS)).toEqual({
      connectionString: "postgres://a2a@db:5432/a2a",
      options: "-c search_path=s1 -c TimeZone=UTC -c tcp_user_timeout=30000",
    });
  });

  it("keeps an operator's own value however it is written, and adds a setting only named in a value", () => {
    const given = "-cTimeZone=Europe/Paris --tcp_user_timeout=5000 -c application_name=timezone-app";
    expect(sessionStartup("postgres://db/a2a", given, LISTEN_SESSIONS).options).toBe(given);
    expect(sessionStartup("postgres://db/a2a", "-c application_name=tcp_user_timeout", LISTEN_SESSIONS).options).toBe(
      "-c application_name=tcp_user_timeout -c TimeZone=UTC -c tcp_user_timeout=30000",
    );
  });

  it("keeps an operator's own value of a setting it would add", () => {
    const { options } = sessionStartup(
      "postgres://db/a2a",
      "-c tcp_user_timeout=5000 -c timezone=Europe/Paris",
      LISTEN_SESSIONS,
    );
    expect(options).toBe("-c tcp_user_timeout=5000 -c timezone=Europe/Paris");
  });

  it("sends the connection string's own options with its settings, which node-postgres would let replace them", () => {
    const url =
      "postgres://a2a:p%40ss@db:5432/a2a?sslmode=require&options=-c%20statement_timeout%3D1234&application_name=x";
    expect(sessionStartup(url, "-c search_path=ignored", LISTEN_SESSIONS)).toEqual({
      connectionString: "postgres://a2a:p%40ss@db:5432/a2a?sslmode=require&application_name=x",
      options: "-c statement_timeout=1234 -c TimeZone=UTC -c tcp_user_timeout=30000",
    });
  });

  it("reads a repeated options parameter as node-postgres does: the last one", () => {
    const { connectionString, options } = sessionStartup(
      "postgres://db/a2a?options=-c%20work_mem%3D1MB&options=-c%20work_mem%3D2MB",
      undefined,
      { TimeZone: "UTC" },
    );
    expect({ connectionString, options }).toEqual({
      connectionString: "postgres://db/a2a",
      options: "-c work_mem=2MB -c TimeZone=UTC",
    });
  });

  it("reads the options of a form a URL parser refuses (a socket's user with no host)", () => {
    const url = "postgres://a2a@/a2a?host=/var/run/postgresql&options=-c+statement_timeout%3D5s";
    expect(sessionStartup(url, undefined, { TimeZone: "UTC" })).toEqual({
      connectionString: "postgres://a2a@/a2a?host=%2Fvar%2Frun%2Fpostgresql",
      options: "-c statement_timeout=5s -c TimeZone=UTC",
    });
  });
});
