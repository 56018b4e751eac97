import type { DeliveryRequest } from "../../core/ports.js";

/**
 * Tells the caller the request has left. The caller's bookkeeping must never turn a sent request
 * into a failed one: a failed result would schedule a retry of a call that may have landed, while
 * the record's `sentAt` is only informative. So whatever the callback throws is dropped here.
 */
export const notifySent = (onSent: DeliveryRequest["onSent"]): void => {
  try {
    onSent?.();
  } catch {
    // See above: the request is out, and that is what the result must say.
  }
};
