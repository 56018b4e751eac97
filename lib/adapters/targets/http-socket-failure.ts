import { ErrorCategory } from "../../core/policy.js";

const errorCode = (error: Error): string | undefined => {
  const code = (error as NodeJS.ErrnoException).code;
  return typeof code === "string" ? code : undefined;
};

/**
 * Maps a socket-level failure to a category. `flushed` says whether the whole request had left,
 * which decides whether the receiver may have acted on it.
 */
const categorise = (
  error: Error,
  flushed: boolean,
): { category: ErrorCategory; requestSent: boolean } => {
  const code = errorCode(error) ?? "";
  switch (code) {
    case "ECONNREFUSED":
    case "EHOSTUNREACH":
    case "ENETUNREACH":
    case "EADDRNOTAVAIL":
      return { category: ErrorCategory.CONNECTION_REFUSED, requestSent: false };
    case "ENOTFOUND":
    case "EAI_AGAIN":
    case "ENODATA":
      return { category: ErrorCategory.DNS_FAILURE, requestSent: false };
    case "ECONNRESET":
    case "EPIPE":
    case "ECONNABORTED":
      return { category: ErrorCategory.CONNECTION_RESET, requestSent: flushed };
    case "ETIMEDOUT":
      return { category: ErrorCategory.TIMEOUT, requestSent: flushed };
    default:
      // TLS failures (ERR_TLS_*, CERT_*, …) and anything unforeseen.
      return { category: ErrorCategory.UNKNOWN, requestSent: flushed };
  }
};

/** A socket-level failure as an attempt's error: category, whether sent, and a message with the code. */
export const socketFailure = (
  error: Error,
  flushed: boolean,
): {
  readonly category: ErrorCategory;
  readonly requestSent: boolean;
  readonly message: string;
} => {
  const { category, requestSent } = categorise(error, flushed);
  const code = errorCode(error);
  return {
    category,
    requestSent,
    message: code === undefined ? error.message : `${code}: ${error.message}`,
  };
};
