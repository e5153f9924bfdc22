import { EXIT_CODES } from "@a2a-partner/a2a-core/node-runtime";
import { describe, expect, it } from "vitest";
import { runCli } from "./support/server-process.ts";

// The parsing itself is src/config.test.ts's; here, what an operator sees when `serve` starts with it.
describe("the push settings at start", () => {
  it("stop a start with an unreadable PUSH_ALLOWED_HOSTS (exit 78), naming the entry", async () => {
    const run = await runCli(["serve"], { PUSH_ALLOWED_HOSTS: "10.0.0.0/8, https://hooks.internal" });
    expect(run.code).toBe(EXIT_CODES.config);
    expect(run.stderr).toContain(
      'configuration refused: PUSH_ALLOWED_HOSTS must be comma-separated host names, IPs or CIDRs (10.0.0.0/8); "https://hooks.internal" is a URL',
    );
  });

  it("stop a start with PUSH_NOTIFICATIONS neither on nor off", async () => {
    const run = await runCli(["serve"], { PUSH_NOTIFICATIONS: "yes" });
    expect(run.code).toBe(EXIT_CODES.config);
    expect(run.stderr).toContain('PUSH_NOTIFICATIONS must be on or off (unset: on), got "yes"');
  });

  it("stop a start with PUSH_DISPATCH_THREAD neither on nor off", async () => {
    const run = await runCli(["serve"], { PUSH_DISPATCH_THREAD: "2" });
    expect(run.code).toBe(EXIT_CODES.config);
    expect(run.stderr).toContain('PUSH_DISPATCH_THREAD must be on or off (unset: on), got "2"');
  });
});
