import { StringDecoder } from "node:string_decoder";

/*
 * Reading what a Lambda invocation returned, shared by everything that invokes a function (the
 * Lambda delivery target, the CLI's redrive through the operator function).
 */

/** The first `maxBytes` of a payload as text, never splitting a multi-byte character. */
export const decodeExcerpt = (payload: Uint8Array | undefined, maxBytes: number): string =>
  payload === undefined
    ? ""
    : new StringDecoder("utf8").write(
        Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength).subarray(0, maxBytes),
      );

/** A payload's JSON value, or `undefined` when it is not JSON (a runtime crash can return anything). */
export const parsePayload = (payloadText: string): unknown => {
  try {
    return JSON.parse(payloadText) as unknown;
  } catch {
    return undefined;
  }
};

/**
 * `errorType: errorMessage` from a Lambda error payload (`payloadText`, the whole payload decoded),
 * or `fallback` (an excerpt of it) if it is not one.
 */
export const describeFunctionError = (payloadText: string, fallback: string): string => {
  try {
    const parsed: unknown = JSON.parse(payloadText);
    if (typeof parsed === "object" && parsed !== null) {
      const { errorType, errorMessage } = parsed as { errorType?: unknown; errorMessage?: unknown };
      if (typeof errorMessage === "string") {
        return typeof errorType === "string" ? `${errorType}: ${errorMessage}` : errorMessage;
      }
    }
  } catch {
    // Not JSON (a runtime crash can return anything): fall back to the excerpt.
  }
  return fallback;
};
