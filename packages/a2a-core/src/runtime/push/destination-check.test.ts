import { describe, expect, it } from "vitest";
import { AllowedHosts } from "./allowed-hosts.js";
import { pushDestinationCheck } from "./destination-check.js";
import { forbiddenAddressReason } from "./forbidden-address.js";
import { AllowedHostsError, parseAllowedHosts } from "./parse-allowed-hosts.js";

const check = pushDestinationCheck();
const refusal = (url: string) => check(new URL(url));

describe("the push SSRF guard's address rules", () => {
  it.each([
    ["127.0.0.1", "loopback"],
    ["127.255.255.254", "loopback"],
    ["10.0.0.1", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.168.1.1", "private"],
    ["169.254.169.254", "link-local"],
    ["169.254.0.1", "link-local"],
    ["100.64.0.1", "carrier-grade NAT"],
    ["100.127.255.255", "carrier-grade NAT"],
    ["224.0.0.1", "multicast"],
    ["239.255.255.250", "multicast"],
    ["0.0.0.0", "unspecified"],
    ["0.1.2.3", "unspecified"],
    ["255.255.255.255", "broadcast"],
    ["240.0.0.1", "reserved"],
    ["192.0.2.10", "reserved"],
    ["198.18.0.1", "reserved"],
  ])("refuses IPv4 %s (%s)", (address, kind) => {
    expect(forbiddenAddressReason(address)).toContain(kind);
  });

  it.each(["8.8.8.8", "1.1.1.1", "93.184.216.34", "172.32.0.1", "100.128.0.1", "169.255.0.1", "11.0.0.1"])(
    "allows the public IPv4 %s",
    (address) => {
      expect(forbiddenAddressReason(address)).toBeUndefined();
    },
  );

  it.each([
    ["::1", "loopback"],
    ["::", "unspecified"],
    ["fe80::1", "link-local"],
    ["febf::1", "link-local"],
    ["fc00::1", "private"],
    ["fd12:3456::1", "private"],
    ["fd00:ec2::254", "private"],
    ["ff02::1", "multicast"],
    ["2001:db8::1", "reserved"],
    ["100::1", "reserved"],
    ["64:ff9b:1::1", "reserved"],
    ["4000::1", "reserved"],
  ])("refuses IPv6 %s (%s)", (address, kind) => {
    expect(forbiddenAddressReason(address)).toContain(kind);
  });

  it.each(["2606:4700:4700::1111", "2a00:1450:4001:80b::200e", "2001:4860:4860::8888"])(
    "allows the public IPv6 %s",
    (address) => {
      expect(forbiddenAddressReason(address)).toBeUndefined();
    },
  );

  it.each([
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:7f00:1", "loopback"],
    ["::ffff:169.254.169.254", "link-local"],
    ["::ffff:10.1.2.3", "private"],
    ["::127.0.0.1", "loopback"],
    ["::a9fe:a9fe", "link-local"],
    ["::ffff:0:192.168.0.1", "private"],
    ["64:ff9b::10.0.0.1", "private"],
    ["64:ff9b::169.254.169.254", "link-local"],
    ["2002:7f00:1::", "loopback"],
    ["2002:a9fe:a9fe::1", "link-local"],
  ])("judges the IPv4 inside the IPv6 form %s (%s)", (address, kind) => {
    expect(forbiddenAddressReason(address)).toContain(kind);
  });

  it("allows IPv6 forms of a public IPv4 address", () => {
    expect(forbiddenAddressReason("::ffff:8.8.8.8")).toBeUndefined();
    expect(forbiddenAddressReason("64:ff9b::8.8.8.8")).toBeUndefined();
    expect(forbiddenAddressReason("2002:808:808::1")).toBeUndefined();
  });
});

describe("pushDestinationCheck (any runtime)", () => {
  it("takes only http: and https: URLs", async () => {
    expect(await refusal("ftp://example.com/hook")).toMatch(/only http: and https:.*ftp:/);
    expect(await refusal("file:///etc/passwd")).toMatch(/only http: and https:/);
    expect(await refusal("javascript:alert(1)")).toMatch(/only http: and https:/);
    expect(await refusal("https://example.com/hook?x=1")).toBeUndefined();
    expect(await refusal("http://example.com:8080/hook")).toBeUndefined();
  });

  it("refuses a URL with credentials in it (they belong in the config's authentication)", async () => {
    expect(await refusal("https://user:pass@hooks.example.com/")).toMatch(/credentials/);
    expect(await refusal("https://user@hooks.example.com/")).toMatch(/credentials/);
  });

  it("refuses literal addresses in every way a URL can write them", async () => {
    expect(await refusal("http://127.0.0.1/")).toContain("loopback");
    expect(await refusal("http://[::1]:8080/")).toContain("loopback");
    expect(await refusal("http://[::ffff:169.254.169.254]/latest/meta-data")).toContain("link-local");
    // The URL parser turns these into 127.0.0.1 and 169.254.169.254 before the guard sees them.
    expect(await refusal("http://2130706433/")).toContain("loopback");
    expect(await refusal("http://0x7f.1/")).toContain("loopback");
    expect(await refusal("http://0251.0376.0251.0376/")).toContain("link-local");
    expect(await refusal("http://[fd00:ec2::254]/")).toContain("private");
  });

  it("refuses localhost, *.localhost and metadata.google.internal by name, trailing dot or not", async () => {
    expect(await refusal("http://localhost:3000/")).toContain("localhost");
    expect(await refusal("http://LOCALHOST./")).toContain("localhost");
    expect(await refusal("http://api.localhost/")).toContain("api.localhost");
    expect(await refusal("http://metadata.google.internal/computeMetadata/v1/")).toContain("metadata");
    expect(await refusal("http://metadata.google.internal./")).toContain("metadata");
  });

  it("leaves other names to what they resolve to (the Node entry's checks)", async () => {
    expect(await refusal("https://hooks.example.com/a2a")).toBeUndefined();
    expect(await refusal("https://localhost.example.com/")).toBeUndefined();
  });

  it("lets through the hosts, addresses and CIDR blocks an operator allows, and nothing next to them", async () => {
    const allowing = pushDestinationCheck({ allowedHosts: ["localhost", "10.8.0.0/16", "127.0.0.1", "fd00::/8"] });
    const judge = (url: string) => allowing(new URL(url));
    expect(await judge("http://localhost:8080/")).toBeUndefined();
    expect(await judge("http://10.8.200.1/")).toBeUndefined();
    expect(await judge("http://10.9.0.1/")).toContain("private");
    expect(await judge("http://127.0.0.1:9000/")).toBeUndefined();
    expect(await judge("http://[::ffff:127.0.0.1]/")).toBeUndefined();
    expect(await judge("http://127.0.0.2/")).toContain("loopback");
    expect(await judge("http://[fd12::1]/")).toBeUndefined();
    expect(await judge("http://[fc00::1]/")).toContain("private");
    expect(await judge("http://api.localhost/")).toContain("localhost");
    expect(await judge("ftp://localhost/")).toMatch(/only http/);
  });
});

describe("AllowedHosts", () => {
  it("reads names, addresses and blocks of both families, and IPv4-mapped blocks as IPv4", () => {
    const allowed = AllowedHosts.parse([" Hooks.Internal. ", "192.168.0.0/24", "[::1]", "::ffff:10.0.0.0/104"]);
    expect(allowed.allowsName("hooks.internal")).toBe(true);
    expect(allowed.allowsName("HOOKS.INTERNAL.")).toBe(true);
    expect(allowed.allowsName("other.internal")).toBe(false);
    expect(allowed.allowsAddress("192.168.0.200")).toBe(true);
    expect(allowed.allowsAddress("192.168.1.1")).toBe(false);
    expect(allowed.allowsAddress("::1")).toBe(true);
    expect(allowed.allowsAddress("10.200.0.1")).toBe(true);
    expect(allowed.allowsAddress("::ffff:10.200.0.1")).toBe(true);
  });

  it.each(["10.0.0.0/33", "10.0.0.0/x", "not a host", "http://example.com", "example.com:8080", "*.example.com"])(
    "refuses the malformed entry %j, naming it",
    (entry) => {
      expect(() => AllowedHosts.parse([entry])).toThrow(new RegExp(entry.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")));
    },
  );

  it("refuses a CIDR block with host bits set instead of widening it, saying what to write", () => {
    // 127.0.0.2/8 was read as all of 127/8: the operator may have meant either.
    expect(() => AllowedHosts.parse(["127.0.0.2/8"])).toThrow(
      'allowedHosts: "127.0.0.2/8" is a CIDR block with host bits set: write 127.0.0.0/8 for the block, or 127.0.0.2 for the address alone',
    );
    expect(() => pushDestinationCheck({ allowedHosts: ["10.1.2.3/16"] })).toThrow(AllowedHostsError);
    expect(() => AllowedHosts.parse(["fd00::1/8"])).toThrow(/write fd00::\/8 for the block, or fd00::1 for/);
    expect(AllowedHosts.parse(["127.0.0.0/8", "10.1.2.3/32", "fd00::/8", "::/0"]).allowsAddress("127.0.0.2")).toBe(
      true,
    );
  });
});

describe("parseAllowedHosts (the reference server reads PUSH_ALLOWED_HOSTS with it)", () => {
  it("reads a comma-separated string or entries, canonical", () => {
    const canonical = ["hooks.internal", "10.1.2.3", "10.20.0.0/16", "fd00::1", "fd00::/8", "receiver"];
    expect(parseAllowedHosts(" Hooks.Internal. , 10.1.2.3,10.20.0.0/16, [FD00::1], fd00::/8 ,receiver")).toEqual(
      canonical,
    );
    expect(
      parseAllowedHosts(["hooks.internal", "10.1.2.3", "10.20.0.0/16", "[fd00::1]", "fd00::/8", "receiver"]),
    ).toEqual(canonical);
    for (const blank of ["", "  ", [], [""], undefined]) expect(parseAllowedHosts(blank)).toEqual([]);
  });

  it.each([
    ["https://hooks.internal/a2a", "a URL: give its host alone"],
    ["hooks.internal:8443", "a host with a port"],
    ["*.internal", "a wildcard"],
    ["10.0.0.0/33", "not a CIDR block: the prefix must be 0 to 32"],
    ["fd00::/129", "not a CIDR block: the prefix must be 0 to 128"],
    ["hooks/16", "not a CIDR block: the part before / is not an IP address"],
    ["127.0.0.2/8", "a CIDR block with host bits set"],
    ["bad host!", "neither a host name nor an IP address"],
  ])("refuses %j, naming it and why", (entry, reason) => {
    const thrown = (() => {
      try {
        parseAllowedHosts(`10.0.0.1, ${entry}`);
      } catch (error) {
        return error;
      }
    })();
    expect(thrown).toBeInstanceOf(AllowedHostsError);
    expect(thrown).toBeInstanceOf(TypeError);
    expect(thrown).toMatchObject({ entry, reason: expect.stringContaining(reason) });
  });

  it("refuses a blank entry among others", () => {
    expect(() => parseAllowedHosts("10.0.0.1,,10.0.0.2")).toThrow('"" is an empty entry (two commas in a row?)');
  });
});
