import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  AddressClass,
  classifyAddress,
  createAddressPolicy,
} from "../../lib/core/address-policy.js";
import { ConfigurationError } from "../../lib/core/errors.js";

describe("classifyAddress", () => {
  it.each([
    ["127.0.0.1", AddressClass.LOOPBACK],
    ["127.255.255.254", AddressClass.LOOPBACK],
    ["::1", AddressClass.LOOPBACK],
    ["[::1]", AddressClass.LOOPBACK],
    ["0.0.0.0", AddressClass.UNSPECIFIED],
    ["::", AddressClass.UNSPECIFIED],
    ["10.0.0.5", AddressClass.PRIVATE],
    ["172.16.0.1", AddressClass.PRIVATE],
    ["172.31.255.255", AddressClass.PRIVATE],
    ["192.168.1.1", AddressClass.PRIVATE],
    ["fc00::1", AddressClass.PRIVATE],
    ["fd00:ec2::254", AddressClass.PRIVATE],
    ["100.64.0.1", AddressClass.SHARED],
    ["169.254.169.254", AddressClass.LINK_LOCAL],
    ["fe80::1", AddressClass.LINK_LOCAL],
    ["fe80::1%eth0", AddressClass.LINK_LOCAL],
    ["224.0.0.1", AddressClass.MULTICAST],
    ["ff02::1", AddressClass.MULTICAST],
    ["255.255.255.255", AddressClass.BROADCAST],
    ["240.0.0.1", AddressClass.RESERVED],
    ["192.0.2.10", AddressClass.RESERVED],
    ["2001:db8::1", AddressClass.RESERVED],
    ["::ffff:127.0.0.1", AddressClass.LOOPBACK],
    ["::ffff:7f00:1", AddressClass.LOOPBACK],
    ["::ffff:169.254.169.254", AddressClass.LINK_LOCAL],
    ["::ffff:10.0.0.1", AddressClass.PRIVATE],
    ["64:ff9b::a9fe:a9fe", AddressClass.LINK_LOCAL],
    ["2002:7f00:1::", AddressClass.LOOPBACK],
    ["2001:0:4136:e378::1", AddressClass.RESERVED],
    ["not-an-address", AddressClass.RESERVED],
  ])("classifies %s as %s", (address, expected) => {
    expect(classifyAddress(address)).toBe(expected);
  });

  it.each([
    "8.8.8.8",
    "93.184.216.34",
    "172.32.0.1",
    "100.128.0.1",
    "2606:4700:4700::1111",
    "::ffff:8.8.8.8",
    "64:ff9b::808:808",
  ])("treats public %s as public", (address) => {
    expect(classifyAddress(address)).toBeUndefined();
  });

  it("classifies every 10/8 address as private, mapped or not", () => {
    fc.assert(
      fc.property(fc.nat(255), fc.nat(255), fc.nat(255), (b, c, d) => {
        expect(classifyAddress(`10.${b}.${c}.${d}`)).toBe(AddressClass.PRIVATE);
        expect(classifyAddress(`::ffff:10.${b}.${c}.${d}`)).toBe(AddressClass.PRIVATE);
      }),
    );
  });

  it("gives an IPv4 address and its mapped IPv6 form the same class", () => {
    fc.assert(
      fc.property(fc.ipV4(), (address) => {
        expect(classifyAddress(`::ffff:${address}`)).toBe(classifyAddress(address));
      }),
    );
  });
});

describe("createAddressPolicy", () => {
  it("refuses a private address by default, saying why", () => {
    const verdict = createAddressPolicy().check("169.254.169.254", "metadata.example");
    expect(verdict).toEqual({
      allowed: false,
      kind: AddressClass.LINK_LOCAL,
      reason: "169.254.169.254 is a link-local address",
    });
  });

  it("accepts a public address", () => {
    expect(createAddressPolicy().check("8.8.8.8", "dns.google")).toEqual({
      allowed: true,
      via: "public",
    });
  });

  it.each([
    ["an exact IPv4 address", ["127.0.0.1"], "127.0.0.1", undefined],
    ["an IPv4 address in its mapped form", ["127.0.0.1"], "::ffff:127.0.0.1", undefined],
    ["an IPv4 CIDR", ["10.1.0.0/16"], "10.1.200.3", undefined],
    ["an IPv6 CIDR", ["fd00::/8"], "fd12::5", undefined],
    ["a bracketed IPv6 address", ["[::1]"], "::1", undefined],
    ["a host name, whatever it resolves to", ["hooks.internal"], "10.9.9.9", "hooks.internal"],
    [
      "a host name, case and trailing dot aside",
      ["Hooks.Internal."],
      "10.9.9.9",
      "HOOKS.internal.",
    ],
    ["a wildcard subdomain", ["*.svc.internal"], "10.9.9.9", "a.b.svc.internal"],
  ])("allows %s", (_name, allowList, address, hostname) => {
    expect(createAddressPolicy(allowList).check(address, hostname)).toEqual({
      allowed: true,
      via: "allow_list",
    });
  });

  it.each([
    ["an address outside the CIDR", ["10.1.0.0/16"], "10.2.0.1", undefined],
    ["another host name", ["hooks.internal"], "10.9.9.9", "evil.internal"],
    ["the bare domain of a wildcard", ["*.svc.internal"], "10.9.9.9", "svc.internal"],
    ["a suffix that is not a subdomain", ["*.internal"], "10.9.9.9", "evilinternal"],
  ])("still refuses %s", (_name, allowList, address, hostname) => {
    expect(createAddressPolicy(allowList).check(address, hostname).allowed).toBe(false);
  });

  it("rejects malformed allow-list entries, naming each", () => {
    const build = () => createAddressPolicy(["ok.example", "1.2.3.4/33", "has space", "10.0.0.0/"]);
    expect(build).toThrow(ConfigurationError);
    expect(build).toThrow(/1\.2\.3\.4\/33, has space, 10\.0\.0\.0\//);
  });
});
