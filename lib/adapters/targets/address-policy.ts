import { lookup } from "node:dns/promises";
import { isIP, type LookupFunction } from "node:net";
import { type AddressPolicy, normaliseAddress } from "../../core/address-policy.js";
import { ErrorCategory } from "../../core/policy.js";

/*
 * The I/O half of the address policy: resolve a target's host name once, judge every address it
 * resolves to, and hand the HTTP stack a `lookup` that can only return the address judged. The
 * connection therefore goes where the check looked, even if the name's DNS answer changes
 * between the check and the connect (DNS rebinding).
 */

/** Resolves a host name to IP addresses; injectable so tests need no DNS. */
export type Resolve = (hostname: string) => Promise<readonly string[]>;

/** The operating system's resolver (getaddrinfo), as `http.request` would use it. */
export const systemResolve: Resolve = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map((entry) => entry.address);

/** The address a connection may use, or why there is none. */
export type SafeAddress =
  | { readonly ok: true; readonly address: string; readonly family: 4 | 6 }
  | {
      readonly ok: false;
      readonly category: typeof ErrorCategory.DNS_FAILURE | typeof ErrorCategory.TARGET_REFUSED;
      readonly message: string;
    };

const errorCode = (error: unknown): string =>
  typeof error === "object" && error !== null && "code" in error && typeof error.code === "string"
    ? error.code
    : "unknown error";

/**
 * Resolves `hostname` (a URL's host: a name, an IPv4 address or a bracketed IPv6 address) and
 * checks it against `policy`. A name with several addresses is refused if any of them is: an
 * answer mixing public and internal addresses is a rebinding attempt, not a deployment.
 */
export const resolveSafeAddress = async (
  hostname: string,
  policy: AddressPolicy,
  resolve: Resolve,
): Promise<SafeAddress> => {
  const literal = normaliseAddress(hostname);
  let addresses: readonly string[];
  if (isIP(literal) !== 0) {
    addresses = [literal];
  } else {
    try {
      addresses = await resolve(hostname);
    } catch (error) {
      return {
        ok: false,
        category: ErrorCategory.DNS_FAILURE,
        message: `cannot resolve ${hostname}: ${errorCode(error)}`,
      };
    }
  }
  const first = addresses[0];
  if (first === undefined) {
    return {
      ok: false,
      category: ErrorCategory.DNS_FAILURE,
      message: `${hostname} has no address`,
    };
  }
  for (const address of addresses) {
    const verdict = policy.check(address, hostname);
    if (!verdict.allowed) {
      return {
        ok: false,
        category: ErrorCategory.TARGET_REFUSED,
        message: `refused ${hostname}: ${verdict.reason}; add it to the allowed target hosts to permit it`,
      };
    }
  }
  const address = normaliseAddress(first);
  return { ok: true, address, family: isIP(address) === 6 ? 6 : 4 };
};

/** A `lookup` for `http.request` that answers every query with the one checked address. */
export const pinnedLookup =
  (address: string, family: 4 | 6): LookupFunction =>
  (_hostname, options, callback) => {
    // Node 20 asks for all addresses when it tries families in turn (autoSelectFamily).
    if (options.all === true) {
      (callback as (error: null, addresses: { address: string; family: number }[]) => void)(null, [
        { address, family },
      ]);
    } else {
      callback(null, address, family);
    }
  };
