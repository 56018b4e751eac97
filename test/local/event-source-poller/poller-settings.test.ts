import { SQSClient } from "@aws-sdk/client-sqs";
import { describe, expect, it } from "vitest";
import { ConfigurationError } from "../../../lib/core/errors.js";
import { pollerSettings } from "../../../lib/local/event-source-poller/poller-settings.js";
import type { EventSourcePollerOptions } from "../../../lib/local/event-source-poller.js";

const optionsWith = (extra: Partial<EventSourcePollerOptions>): EventSourcePollerOptions => ({
  sqs: new SQSClient({ region: "us-east-1" }),
  queueUrl: "http://127.0.0.1:1/000000000000/q",
  handler: async () => undefined,
  ...extra,
});

describe("pollerSettings", () => {
  it("fills in Lambda's defaults", () => {
    expect(pollerSettings(optionsWith({}))).toEqual({
      batchSize: 10,
      batchingWindowMs: 0,
      maxConcurrency: 2,
      functionTimeoutMs: 30_000,
      waitTimeSeconds: 1,
      functionName: "ricochet-local",
    });
  });

  it("takes a batch above ten when it has a batching window", () => {
    const settings = pollerSettings(optionsWith({ batchSize: 100, batchingWindowMs: 500 }));
    expect(settings.batchSize).toBe(100);
  });

  it("names every problem at once", () => {
    const refuse = () => pollerSettings(optionsWith({ batchSize: 11, waitTimeSeconds: 1.5 }));
    expect(refuse).toThrow(ConfigurationError);
    expect(refuse).toThrow(
      "invalid event source poller options: waitTimeSeconds must be a whole number from 0 to 20; " +
        "a batchSize above 10 needs a batchingWindowMs, as Lambda requires",
    );
  });
});
