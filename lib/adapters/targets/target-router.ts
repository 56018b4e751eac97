import type { Envelope } from "../../core/envelope.js";
import type { DeliveryTarget, TargetRouter } from "../../core/ports.js";

/** The adapters a router picks from, one per target type. */
export type TargetAdapters = { readonly [Type in Envelope["target"]["type"]]: DeliveryTarget };

/**
 * Picks the delivery adapter for a target type. Typed as a complete mapping so a new target type
 * in the envelope schema fails to compile here until it has an adapter.
 */
export const createTargetRouter = (adapters: TargetAdapters): TargetRouter => ({
  forTarget: (type) => adapters[type],
});
