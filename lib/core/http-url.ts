/*
 * An HTTP target's URL, as one rule the orchestrator and the published JSON Schema share. A URL
 * parser alone (WHATWG's, which Node's `URL` implements) cannot be the rule: it accepts
 * `http:host`, spaces, `\` and non-ASCII by rewriting them, and no JSON Schema validator in another
 * language can say what it will accept. The rule is therefore RFC 3986's syntax for an absolute
 * `http`/`https` URI with a host, written as a regular expression every JSON Schema validator
 * runs. The pieces below are RFC 3986's productions, named as there (appendix A).
 */

const HEXDIG = "[0-9A-Fa-f]";
const PCT_ENCODED = `%${HEXDIG}{2}`;
/** unreserved / sub-delims, to open a character class (`-` first: literal there). */
const UNRESERVED_OR_SUB_DELIM = "-A-Za-z0-9._~!$&'()*+,;=";
const PCHAR = `(?:[${UNRESERVED_OR_SUB_DELIM}:@]|${PCT_ENCODED})`;

const DEC_OCTET = "(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9][0-9]|[0-9])";
const IPV4_ADDRESS = `${DEC_OCTET}(?:\\.${DEC_OCTET}){3}`;
const H16 = `${HEXDIG}{1,4}`;
const LS32 = `(?:${H16}:${H16}|${IPV4_ADDRESS})`;
/** `[ *n( h16 ":" ) h16 ]`: up to n+1 pieces before a `::`. */
const piecesBefore = (n: number): string => `(?:(?:${H16}:){0,${n}}${H16})?`;
const IPV6_ADDRESS = [
  `(?:${H16}:){6}${LS32}`,
  `::(?:${H16}:){5}${LS32}`,
  `${piecesBefore(0)}::(?:${H16}:){4}${LS32}`,
  `${piecesBefore(1)}::(?:${H16}:){3}${LS32}`,
  `${piecesBefore(2)}::(?:${H16}:){2}${LS32}`,
  `${piecesBefore(3)}::${H16}:${LS32}`,
  `${piecesBefore(4)}::${LS32}`,
  `${piecesBefore(5)}::${H16}`,
  `${piecesBefore(6)}::`,
].join("|");

/*
 * A registered name narrower than RFC 3986's: dot-separated labels of letters, digits, `-` and
 * `_`, with an optional trailing dot. Percent-encoding and sub-delims in a host are legal URI
 * syntax that no receiver's DNS name uses, and each is one more way to spell a host the address
 * policy must see through.
 */
const LABEL = "[A-Za-z0-9_-]+";
const REG_NAME = `${LABEL}(?:\\.${LABEL})*\\.?`;
const HOST = `(?:\\[(?:${IPV6_ADDRESS})\\]|${REG_NAME})`;
const USERINFO = `(?:[${UNRESERVED_OR_SUB_DELIM}:]|${PCT_ENCODED})*@`;
/** 0–65535 (a leading zero allowed up to four digits; an empty port means the default). */
const PORT = "(?:6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[0-9]{0,4})";
const PATH = `(?:/${PCHAR}*)*`;
const QUERY_OR_FRAGMENT = `(?:${PCHAR}|[/?])*`;

/**
 * The syntax of an HTTP target's URL: RFC 3986's absolute URI, scheme `http` or `https` (in any
 * case), with a host, optional user information and port, and path, query and fragment of
 * RFC 3986's characters only (percent-encode anything else). ASCII only, anchored.
 */
export const HTTP_URL_PATTERN = new RegExp(
  `^[Hh][Tt][Tt][Pp][Ss]?://(?:${USERINFO})?${HOST}(?::${PORT})?${PATH}(?:\\?${QUERY_OR_FRAGMENT})?(?:#${QUERY_OR_FRAGMENT})?$`,
);

/** The rule in words, for the problem an envelope gets and for the README. */
export const HTTP_URL_RULE =
  "must be an absolute http:// or https:// URL of RFC 3986's characters (percent-encode any other)";

/**
 * Whether the WHATWG URL parser (Node's `URL`, what the HTTP adapter calls with) reads `url`. For
 * a URL matching {@link HTTP_URL_PATTERN} it fails only on a host it cannot read: a last label
 * that is a number but no IPv4 address (`a.1`, `10.0.0.256`) or an `xn--` label that is not
 * Punycode, which no regular expression of a JSON Schema can tell.
 */
export const urlParserReads = (url: string): boolean => URL.canParse(url);
