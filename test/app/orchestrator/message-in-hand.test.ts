import { describe, expect, it } from "vitest";
import { holdMessage } from "../../../lib/app/orchestrator/message-in-hand.js";
import {
  type OrchestratorDeps,
  orchestratorContext,
} from "../../../lib/app/orchestrator/orchestrator-context.js";
import { MessageOrigin, type ReceivedMessage } from "../../../lib/core/ports.js";
import { targetKeying } from "../../../lib/core/target-groups.js";
import { anEnvelope, anHttpTarget, aPolicy, FIXED_NOW_MS } from "../../support/factories.js";

const received = (overrides: Partial<ReceivedMessage> = {}): ReceivedMessage => ({
  messageId: "m-1",
  receiptHandle: "r-1",
  origin: MessageOrigin.RICOCHET,
  body: "{}",
  schedule: { generation: 4 },
  reservedAttributes: [],
  receiveCount: 1,
  sentAtMs: FIXED_NOW_MS,
  ...overrides,
});

const PARTNER = "http:https://partner.example:443";

const ctx = orchestratorContext({
  targetKeyOf: targetKeying({ partners: [PARTNER] }),
} as unknown as OrchestratorDeps);

const held = (timeoutMs: number | undefined, callBudgetMs: number, message = received()) =>
  holdMessage(
    ctx,
    message,
    {
      envelope: anEnvelope({
        target: anHttpTarget({ url: "https://partner.example/hook", timeoutMs }),
      }),
      policy: aPolicy(),
      policyAdjustments: [],
    },
    callBudgetMs,
  );

describe("holdMessage", () => {
  it.each([
    ["the target's timeout, within the budget", 4_000, 30_000, 4_000],
    ["the budget, when the timeout is longer", 45_000, 30_000, 30_000],
    ["the default timeout when the target names none", undefined, 30_000, 10_000],
  ])("times the call by %s", (_name, timeoutMs, callBudgetMs, expected) => {
    expect(held(timeoutMs, callBudgetMs).callMs).toBe(expected);
  });

  it("resolves the target to its declared group's key once, for every step", () => {
    expect(held(undefined, 30_000).target).toEqual({ key: "group:partners", group: "partners" });
  });

  it("believes the generation of Ricochet's own messages only", () => {
    expect(held(undefined, 30_000).generation).toBe(4);
    const forged = received({ origin: MessageOrigin.PRODUCER, schedule: { generation: 4 } });
    expect(held(undefined, 30_000, forged).generation).toBe(0);
  });
});
