import { describe, expect, it } from "vitest";
import { pushSettings } from "./push-settings.js";
import { ConfigError } from "./settings.js";

describe("pushSettings", () => {
  it("is on by default, with no allowed private hosts, a 24 h horizon and an hour's longest wait", () => {
    expect(pushSettings({})).toEqual({
      enabled: true,
      allowedHosts: [],
      horizonMs: 86_400_000,
      maxRetryWaitMs: 3_600_000,
    });
  });

  it("turn off with PUSH_NOTIFICATIONS=off, and refuse any other word naming the variable", () => {
    expect(pushSettings({ PUSH_NOTIFICATIONS: "off" }).enabled).toBe(false);
    expect(pushSettings({ PUSH_NOTIFICATIONS: "On" }).enabled).toBe(true);
    for (const value of ["false", "0", "disabled"]) {
      expect(() => pushSettings({ PUSH_NOTIFICATIONS: value })).toThrow(ConfigError);
      expect(() => pushSettings({ PUSH_NOTIFICATIONS: value })).toThrow(
        `PUSH_NOTIFICATIONS must be on or off (unset: on), got "${value}"`,
      );
    }
  });

  it("read PUSH_ALLOWED_HOSTS as host names, IPs and CIDRs", () => {
    const value = " Hooks.Internal , 10.1.2.3,10.20.0.0/16, [fd00::1], fd00::/8 ,receiver";
    expect(pushSettings({ PUSH_ALLOWED_HOSTS: value }).allowedHosts).toEqual([
      "hooks.internal",
      "10.1.2.3",
      "10.20.0.0/16",
      "fd00::1",
      "fd00::/8",
      "receiver",
    ]);
  });

  it.each([
    ["https://hooks.internal/a2a", /"https:\/\/hooks.internal\/a2a" is a URL/],
    ["hooks.internal:8443", /"hooks.internal:8443" is a host with a port/],
    ["*.internal", /"\*.internal" is a wildcard/],
    ["10.0.0.0/33", /"10.0.0.0\/33" is not a CIDR block: the prefix must be 0 to 32/],
    ["fd00::/129", /"fd00::\/129" is not a CIDR block: the prefix must be 0 to 128/],
    ["hooks/16", /"hooks\/16" is not a CIDR block/],
    // Not widened to all of 127/8 by the guard: the operator says which was meant.
    [
      "127.0.0.2/8",
      /"127.0.0.2\/8" is a CIDR block with host bits set: write 127.0.0.0\/8 for the block, or 127.0.0.2/,
    ],
    ["10.0.0.1,,10.0.0.2", /"" is an empty entry/],
    ["bad_host!", /"bad_host!" is neither a host name nor an IP address/],
  ])("refuse PUSH_ALLOWED_HOSTS=%s at start, naming the entry", (value, message) => {
    expect(() => pushSettings({ PUSH_ALLOWED_HOSTS: value })).toThrow(ConfigError);
    expect(() => pushSettings({ PUSH_ALLOWED_HOSTS: value })).toThrow(message);
    expect(() => pushSettings({ PUSH_ALLOWED_HOSTS: value })).toThrow(/^PUSH_ALLOWED_HOSTS must be/);
  });

  it("read PUSH_HORIZON as a duration of at least a minute", () => {
    expect(pushSettings({ PUSH_HORIZON: "2h" }).horizonMs).toBe(7_200_000);
    expect(pushSettings({ PUSH_HORIZON: "1m" }).horizonMs).toBe(60_000);
    for (const value of ["30s", "24", "1.5h", "soon"]) {
      expect(() => pushSettings({ PUSH_HORIZON: value })).toThrow(/PUSH_HORIZON must be a duration of at least 1m/);
    }
  });

  it("read PUSH_MAX_RETRY_WAIT as a duration of at least a second", () => {
    expect(pushSettings({ PUSH_MAX_RETRY_WAIT: "5m" }).maxRetryWaitMs).toBe(300_000);
    expect(pushSettings({ PUSH_MAX_RETRY_WAIT: "1s" }).maxRetryWaitMs).toBe(1_000);
    for (const value of ["0s", "500", "0.5s", "never"]) {
      expect(() => pushSettings({ PUSH_MAX_RETRY_WAIT: value })).toThrow(
        /PUSH_MAX_RETRY_WAIT must be a duration of at least 1s/,
      );
    }
  });
});
