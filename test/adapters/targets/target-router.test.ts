import { describe, expect, it } from "vitest";
import { createTargetRouter } from "../../../lib/adapters/targets/target-router.js";
import type { DeliveryTarget } from "../../../lib/core/ports.js";
import { aResponse } from "../../support/factories.js";

const named = (name: string): DeliveryTarget & { name: string } => ({
  name,
  deliver: async () => aResponse(200),
});

describe("createTargetRouter", () => {
  const http = named("http");
  const lambda = named("lambda");
  const router = createTargetRouter({ http, lambda });

  it.each([
    ["http", http],
    ["lambda", lambda],
  ] as const)("routes %s targets to their adapter", (type, adapter) => {
    expect(router.forTarget(type)).toBe(adapter);
  });
});
