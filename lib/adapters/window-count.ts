import { type StoreContext, storeFailure } from "./dynamo-event-store/store-context.js";

/** One conditional write of a count into a window; undefined when its condition failed. */
type WindowWrite<T> = () => Promise<T | undefined>;

/**
 * A count into an item's window, shared by instances: added to the window the item holds, else
 * the window started with it, else (another instance started it between the two writes) added
 * again. The breakers' failure counts and the rate limits' call counts keep their windows so.
 */
export const countIntoWindow = async <T>(
  context: StoreContext,
  operation: string,
  write: { readonly addToWindow: WindowWrite<T>; readonly startWindow: WindowWrite<T> },
): Promise<T> => {
  const counted =
    (await write.addToWindow()) ?? (await write.startWindow()) ?? (await write.addToWindow());
  if (counted === undefined) {
    return storeFailure(context, new Error("the window moved twice during one count"), operation);
  }
  return counted;
};
