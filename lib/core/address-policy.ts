import { BlockList, isIP } from "node:net";
import { ConfigurationError } from "./errors.js";

/*
 * Which network addresses an HTTP target may reach. A retry service that calls URLs chosen by its
 * producers is an SSRF engine unless it refuses internal addresses: the instance metadata service,
 * the VPC's private ranges, loopback. The check runs on the address the connection will actually
 * use (after DNS), and operators can open specific internal hosts or ranges with an allow list.
 *
 * `node:net`'s BlockList does the CIDR matching (v4 and v6, and it matches IPv4-mapped IPv6 such
 * as ::ffff:127.0.0.1 against IPv4 rules). It does no I/O, so this stays in the pure core.
 */

/** Why an address is not public. */
export const AddressClass = {
  UNSPECIFIED: "unspecified",
  LOOPBACK: "loopback",
  LINK_LOCAL: "link-local",
  PRIVATE: "private",
  SHARED: "shared (carrier-grade NAT)",
  MULTICAST: "multicast",
  BROADCAST: "broadcast",
  RESERVED: "reserved",
} as const;
export type AddressClass = (typeof AddressClass)[keyof typeof AddressClass];

type Range = readonly [network: string, prefix: number, kind: AddressClass];

/** IANA special-purpose IPv4 ranges (RFC 6890 and successors). Order matters: first match names it. */
const IPV4_RANGES: readonly Range[] = [
  ["255.255.255.255", 32, AddressClass.BROADCAST],
  ["0.0.0.0", 8, AddressClass.UNSPECIFIED],
  ["10.0.0.0", 8, AddressClass.PRIVATE],
  ["100.64.0.0", 10, AddressClass.SHARED],
  ["127.0.0.0", 8, AddressClass.LOOPBACK],
  ["169.254.0.0", 16, AddressClass.LINK_LOCAL],
  ["172.16.0.0", 12, AddressClass.PRIVATE],
  ["192.0.0.0", 24, AddressClass.RESERVED],
  ["192.0.2.0", 24, AddressClass.RESERVED],
  ["192.88.99.0", 24, AddressClass.RESERVED],
  ["192.168.0.0", 16, AddressClass.PRIVATE],
  ["198.18.0.0", 15, AddressClass.RESERVED],
  ["198.51.100.0", 24, AddressClass.RESERVED],
  ["203.0.113.0", 24, AddressClass.RESERVED],
  ["224.0.0.0", 4, AddressClass.MULTICAST],
  ["240.0.0.0", 4, AddressClass.RESERVED],
];

const IPV6_RANGES: readonly Range[] = [
  ["::", 128, AddressClass.UNSPECIFIED],
  ["::1", 128, AddressClass.LOOPBACK],
  // IPv4-compatible addresses (deprecated); IPv4-mapped ones are matched by the IPv4 rules.
  ["::", 96, AddressClass.RESERVED],
  // IPv4-translated addresses (SIIT): not routable on the internet.
  ["::ffff:0:0:0", 96, AddressClass.RESERVED],
  ["64:ff9b:1::", 48, AddressClass.PRIVATE],
  ["100::", 64, AddressClass.RESERVED],
  // IETF protocol assignments, Teredo (which embeds an obfuscated IPv4 address), benchmarking.
  ["2001::", 23, AddressClass.RESERVED],
  ["2001:db8::", 32, AddressClass.RESERVED],
  ["3fff::", 20, AddressClass.RESERVED],
  ["5f00::", 16, AddressClass.RESERVED],
  ["fc00::", 7, AddressClass.PRIVATE],
  ["fe80::", 10, AddressClass.LINK_LOCAL],
  ["fec0::", 10, AddressClass.PRIVATE],
  ["ff00::", 8, AddressClass.MULTICAST],
];

const hex16 = (a: number, b: number): string => ((a << 8) | b).toString(16);

/**
 * IPv6 forms that embed an IPv4 address and reach it: NAT64 (64:ff9b::/96) and 6to4 (2002::/16).
 * Each IPv4 range gets a twin in both, so 64:ff9b::a9fe:a9fe is refused like 169.254.169.254.
 */
const embeddedTwins = ([network, prefix, kind]: Range): Range[] => {
  const [a = 0, b = 0, c = 0, d = 0] = network.split(".").map(Number);
  return [
    [`64:ff9b::${hex16(a, b)}:${hex16(c, d)}`, 96 + prefix, kind],
    [`2002:${hex16(a, b)}:${hex16(c, d)}::`, 16 + prefix, kind],
  ];
};

interface Rule {
  readonly list: BlockList;
  readonly kind: AddressClass;
}

const familyOf = (address: string): "ipv4" | "ipv6" | undefined => {
  const version = isIP(address);
  return version === 4 ? "ipv4" : version === 6 ? "ipv6" : undefined;
};

const rule = ([network, prefix, kind]: Range): Rule => {
  const list = new BlockList();
  list.addSubnet(network, prefix, familyOf(network) ?? "ipv6");
  return { list, kind };
};

const RULES: readonly Rule[] = [
  ...IPV4_RANGES.map(rule),
  ...IPV6_RANGES.map(rule),
  ...IPV4_RANGES.flatMap(embeddedTwins).map(rule),
];

/** Strips the brackets of a URL's IPv6 host and any zone id (`fe80::1%eth0`). */
export const normaliseAddress = (address: string): string =>
  address.replace(/^\[(.*)\]$/, "$1").replace(/%.*$/, "");

/**
 * The special-purpose class of an IP address, or `undefined` for an ordinary public address.
 * Anything that is not an IP address is `reserved`: fail closed.
 */
export const classifyAddress = (address: string): AddressClass | undefined => {
  const normal = normaliseAddress(address);
  const family = familyOf(normal);
  if (family === undefined) return AddressClass.RESERVED;
  return RULES.find((candidate) => candidate.list.check(normal, family))?.kind;
};

/** The host every loopback spelling is keyed as: `localhost`, `[::1]`, `127.0.0.2`, `0.0.0.0`. */
const LOOPBACK_HOST = "127.0.0.1";

/**
 * IPv6 literals that are another spelling of one IPv4 address, as a URL writes them (compressed,
 * lower-case hex): IPv4-mapped (`::ffff:a.b.c.d`) is the same socket address on a dual-stack host,
 * and the NAT64 well-known prefix (`64:ff9b::/96`) is translated to exactly the address it embeds.
 */
const EMBEDDING_IPV4 = /^(?:::ffff|64:ff9b:):([0-9a-f]{1,4}):([0-9a-f]{1,4})$/;

const embeddedIpv4 = (ipv6: string): string | undefined => {
  const match = EMBEDDING_IPV4.exec(ipv6);
  if (match === null) return undefined;
  const [high, low] = [Number.parseInt(match[1] ?? "", 16), Number.parseInt(match[2] ?? "", 16)];
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join(".");
};

/** Names that always mean this host (RFC 6761: `localhost` and every name under it). */
const LOOPBACK_NAME = /^(?:.*\.)?localhost$/;

/**
 * One spelling for every way a URL's host can name the same place, for keying what is promised
 * per target (limits, breakers, groups). `hostname` is a WHATWG URL's `hostname`, which has already
 * lower-cased the name, decoded percent-escapes, written IPv4 shorthands (`2130706433`, `0x7f.1`)
 * as dotted quads and compressed IPv6. On top of that: trailing dots go (`example.com.` is the
 * fully-qualified `example.com`), IPv6 brackets go and an IPv6 spelling of an IPv4 address becomes
 * that address, and every loopback or unspecified spelling (which connects to this host) becomes
 * {@link LOOPBACK_HOST}. Two different names that resolve to the same address stay two hosts:
 * nothing here resolves names, and an answer can change from one call to the next.
 */
export const canonicalHost = (hostname: string): string => {
  const host = normaliseAddress(hostname.toLowerCase()).replace(/\.+$/, "");
  if (LOOPBACK_NAME.test(host)) return LOOPBACK_HOST;
  const family = familyOf(host);
  if (family === undefined) return host;
  const address = family === "ipv6" ? (embeddedIpv4(host) ?? host) : host;
  const kind = classifyAddress(address);
  if (kind === AddressClass.LOOPBACK || address === "0.0.0.0" || address === "::")
    return LOOPBACK_HOST;
  return address;
};

/** The decision for one (hostname, address) pair. */
type AddressVerdict =
  | { readonly allowed: true; readonly via: "public" | "allow_list" }
  | { readonly allowed: false; readonly kind: AddressClass; readonly reason: string };

/** Refuses non-public addresses unless the allow list names the host or covers the address. */
export interface AddressPolicy {
  /** Whether the allow list names this host (then any address it resolves to is accepted). */
  allowsHost(hostname: string): boolean;
  /** Judges the address a connection to `hostname` would use. */
  check(address: string, hostname?: string): AddressVerdict;
}

const normaliseHost = (host: string): string =>
  normaliseAddress(host.trim().toLowerCase()).replace(/\.$/, "");

const HOST_PATTERN =
  /^(\*\.)?[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*$/;

/**
 * Builds the policy from allow-list entries (`RICOCHET_ALLOWED_TARGET_HOSTS`): host names
 * (`hooks.internal`, or `*.internal` for any subdomain), IP addresses, or CIDR ranges
 * (`10.1.0.0/16`, `fd00::/8`).
 * @throws ConfigurationError naming every entry that is none of these.
 */
export const createAddressPolicy = (allowList: readonly string[] = []): AddressPolicy => {
  const ranges = new BlockList();
  const hosts = new Set<string>();
  const suffixes: string[] = [];
  const invalid: string[] = [];
  for (const raw of allowList) {
    const entry = normaliseHost(raw);
    const [network = "", prefixText] = entry.split("/");
    const family = familyOf(network);
    if (family !== undefined) {
      const max = family === "ipv4" ? 32 : 128;
      const prefix = prefixText === undefined ? max : Number(prefixText);
      if (!Number.isInteger(prefix) || prefix < 0 || prefix > max || prefixText === "") {
        invalid.push(raw);
        continue;
      }
      ranges.addSubnet(network, prefix, family);
    } else if (prefixText === undefined && HOST_PATTERN.test(entry)) {
      if (entry.startsWith("*.")) suffixes.push(entry.slice(1));
      else hosts.add(entry);
    } else {
      invalid.push(raw);
    }
  }
  if (invalid.length > 0) {
    throw new ConfigurationError(
      `allowed target hosts must be host names, IP addresses or CIDR ranges; not: ${invalid.join(", ")}`,
    );
  }

  const allowsHost = (hostname: string): boolean => {
    const host = normaliseHost(hostname);
    return hosts.has(host) || suffixes.some((suffix) => host.endsWith(suffix));
  };

  return {
    allowsHost,
    check: (address, hostname) => {
      if (hostname !== undefined && allowsHost(hostname))
        return { allowed: true, via: "allow_list" };
      const normal = normaliseAddress(address);
      const family = familyOf(normal);
      if (family !== undefined && ranges.check(normal, family)) {
        return { allowed: true, via: "allow_list" };
      }
      const kind = classifyAddress(normal);
      if (kind === undefined) return { allowed: true, via: "public" };
      return { allowed: false, kind, reason: `${normal} is a ${kind} address` };
    },
  };
};
