import type { HttpTarget } from "../../core/envelope.js";

/** A target URL Ricochet delivers to, with its userinfo decoded. */
export interface ParsedTargetUrl {
  readonly url: URL;
  /** The userinfo, decoded: what Node's `auth` option sends as `Authorization: Basic …`. */
  readonly username: string;
  readonly password: string;
}

/** Parses an HTTP target's URL, or says (as a string) why it cannot be delivered to. */
export const parseTargetUrl = (target: HttpTarget): ParsedTargetUrl | string => {
  let url: URL;
  try {
    url = new URL(target.url);
  } catch {
    return "target url is not a valid URL";
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return `unsupported scheme ${url.protocol.replace(/:$/, "")}: only http and https are delivered`;
  }
  try {
    // A URL keeps a malformed escape (`%zz`) as it is, but decoding it throws.
    return {
      url,
      username: decodeURIComponent(url.username),
      password: decodeURIComponent(url.password),
    };
  } catch {
    return "target url's userinfo is not valid percent-encoding";
  }
};
