import { describe, expect, it } from "vitest";
import type { AttemptEnd } from "../../../lib/app/orchestrator/attempt.js";
import type { ClaimTaken } from "../../../lib/app/orchestrator/claim-step.js";
import { holdMessage } from "../../../lib/app/orchestrator/message-in-hand.js";
import {
  ACK,
  type OrchestratorDeps,
  orchestratorContext,
} from "../../../lib/app/orchestrator/orchestrator-context.js";
import type {
  TargetAdmission,
  TargetBreakers,
} from "../../../lib/app/orchestrator/target-breakers.js";
import { passTargetGate } from "../../../lib/app/orchestrator/target-gate.js";
import {
  type LimitAdmission,
  LimitKind,
  type TargetLimiter,
} from "../../../lib/app/orchestrator/target-limits.js";
import { CountingMetrics, silentLog } from "../../../lib/core/observability.js";
import { type AttemptResult, OutcomeClass } from "../../../lib/core/outcome.js";
import { ErrorCategory } from "../../../lib/core/policy.js";
import {
  MessageOrigin,
  type ReceivedMessage,
  type RecordDeferralRequest,
} from "../../../lib/core/ports.js";
import { callEvidence } from "../../../lib/core/target-health.js";
import { anEnvelope, anEventRecord, aPolicy, FIXED_NOW_MS } from "../../support/factories.js";

const KEY = "receiver.example.com";
const NOW = FIXED_NOW_MS;

const message: ReceivedMessage = {
  messageId: "m-1",
  receiptHandle: "r-1",
  origin: MessageOrigin.PRODUCER,
  body: "{}",
  schedule: { generation: 0 },
  reservedAttributes: [],
  receiveCount: 1,
  sentAtMs: NOW,
};

const answered = (statusCode: number): AttemptResult => ({
  kind: "response",
  statusCode,
  durationMs: 5,
});
const timedOut: AttemptResult = {
  kind: "error",
  category: ErrorCategory.TIMEOUT,
  requestSent: true,
  message: "no response",
  durationMs: 5,
};

/** An attempt classified `outcome` whose call ended with `result` after `timeoutMs`. */
const finished = (
  outcome: OutcomeClass,
  result: AttemptResult | undefined,
  timeoutMs = 10_000,
): AttemptEnd => ({
  kind: "finished",
  decision: { kind: "delivered" },
  outcome: { class: outcome, message: `it was ${outcome}` },
  latencyMs: 5,
  call: result === undefined ? undefined : { result, timeoutMs },
});

/** A gate over breakers and limits that answer as told and write down what they were told. */
const gateWorld = (options: {
  admission: TargetAdmission;
  limit?: LimitAdmission["verdict"];
  resendFails?: boolean;
  deadlineSeconds?: number;
  /** When set, an adaptive limiter that turns every call away until then. */
  learnedUntilMs?: number;
}) => {
  const told: string[] = [];
  const reads = { count: 0 };
  const breakers: TargetBreakers = {
    admit: async () => options.admission,
    recordCall: async (key, failed, as, error) => {
      told.push(`recordCall ${key} failed=${failed} as=${as} error=${error}`);
    },
    abandonProbe: async (key) => {
      told.push(`abandonProbe ${key}`);
    },
    evidenceOf: (_key, call) => callEvidence(call, 1_000),
  };
  const limits: TargetLimiter = {
    admit: async (): Promise<LimitAdmission> =>
      options.limit === "defer"
        ? { verdict: "defer", untilMs: NOW + 2_000, limit: LimitKind.CONCURRENCY }
        : {
            verdict: "call",
            permit: {
              release: async () => {
                told.push("release");
              },
            },
          },
  };
  const deps = {
    // An event with a deadline was first claimed two minutes ago.
    store: {
      get: async () => {
        reads.count += 1;
        return options.deadlineSeconds === undefined
          ? undefined
          : anEventRecord({ createdAt: new Date(NOW - 120_000).toISOString() });
      },
      recordDeferral: async (request: RecordDeferralRequest) => {
        told.push(`recordDeferral ${request.cause}`);
        return { kind: "recorded" };
      },
    },
    ingress: {
      send: async () => {
        if (options.resendFails) throw new Error("queue unreachable");
        told.push("resend");
      },
    },
    clock: () => NOW,
    log: silentLog,
    metrics: new CountingMetrics(),
    leaseMarginMs: 1_000,
    hopSeconds: 900,
    breakers,
    limits,
    adaptive:
      options.learnedUntilMs === undefined
        ? undefined
        : {
            admit: () => ({
              verdict: "defer",
              untilMs: options.learnedUntilMs,
              limit: LimitKind.RATE,
            }),
            observe: () => {},
            engaged: () => [],
          },
    // The breaker and limits are asked for the key the deployment resolves the target to.
    targetKeyOf: () => ({ key: KEY }),
  } as unknown as OrchestratorDeps;
  const ctx = orchestratorContext(deps);
  const event = {
    envelope: anEnvelope(),
    policy: aPolicy({ deadlineSeconds: options.deadlineSeconds }),
    policyAdjustments: [],
  };
  const pass = () => passTargetGate(ctx, holdMessage(ctx, message, event, 10_000));
  return { told, pass, reads };
};

const taking = (attempt: AttemptEnd | undefined) => async (): Promise<ClaimTaken> => ({
  verdict: ACK,
  attempt,
});

describe("passTargetGate", () => {
  it.each<[string, TargetAdmission, AttemptEnd | undefined, string[]]>([
    [
      "a call's success is told to the breaker",
      { verdict: "call" },
      finished(OutcomeClass.SUCCESS, answered(200)),
      ["release", `recordCall ${KEY} failed=false as=call error=it was success`],
    ],
    [
      "a retryable call counts as failed",
      { verdict: "call" },
      finished(OutcomeClass.RETRYABLE, answered(503)),
      ["release", `recordCall ${KEY} failed=true as=call error=it was retryable`],
    ],
    [
      "an uncertain call counts as failed",
      { verdict: "probe" },
      finished(OutcomeClass.UNCERTAIN, timedOut),
      ["release", `recordCall ${KEY} failed=true as=probe error=it was uncertain`],
    ],
    [
      "a permanent answer is the target working, not failing",
      { verdict: "probe" },
      finished(OutcomeClass.PERMANENT, answered(400)),
      ["release", `recordCall ${KEY} failed=false as=probe error=it was permanent`],
    ],
    [
      "a 400 its producer's policy retries is still the target working",
      { verdict: "call" },
      finished(OutcomeClass.RETRYABLE, answered(400)),
      ["release", `recordCall ${KEY} failed=false as=call error=it was retryable`],
    ],
    [
      "a timeout shorter than the floor tells the breaker nothing",
      { verdict: "call" },
      finished(OutcomeClass.UNCERTAIN, timedOut, 100),
      ["release"],
    ],
    [
      "a probe whose call says nothing about the target is given back",
      { verdict: "probe" },
      finished(OutcomeClass.RETRYABLE, { ...timedOut, requestSent: false, beforeContact: true }),
      ["release", `abandonProbe ${KEY}`],
    ],
    [
      "a probe whose claim made no attempt is given back",
      { verdict: "probe" },
      undefined,
      ["release", `abandonProbe ${KEY}`],
    ],
    [
      "a probe whose attempt made no call is given back",
      { verdict: "probe" },
      finished(OutcomeClass.PERMANENT, undefined),
      ["release", `abandonProbe ${KEY}`],
    ],
    [
      "a probe whose lease was lost is given back",
      { verdict: "probe" },
      { kind: "lease_lost" },
      ["release", `abandonProbe ${KEY}`],
    ],
    [
      "a plain call that made no attempt tells the breaker nothing",
      { verdict: "call" },
      undefined,
      ["release"],
    ],
  ])("%s", async (_name, admission, attempt, expected) => {
    const { told, pass } = gateWorld({ admission });
    const gate = await pass();
    if ("deferred" in gate) throw new Error("expected a pass");
    expect(await gate.during(taking(attempt))).toEqual(ACK);
    expect(told).toEqual(expected);
  });

  it("gives a probe back and releases its slot when the claim or attempt throws", async () => {
    const { told, pass } = gateWorld({ admission: { verdict: "probe" } });
    const gate = await pass();
    if ("deferred" in gate) throw new Error("expected a pass");
    await expect(gate.during(async () => Promise.reject(new Error("store down")))).rejects.toThrow(
      "store down",
    );
    expect(told).toEqual([`abandonProbe ${KEY}`, "release"]);
  });

  it("defers an event its open breaker turns away, without asking the limits", async () => {
    const { told, pass } = gateWorld({
      admission: { verdict: "defer", untilMs: NOW + 30_000 },
      limit: "defer",
    });
    expect(await pass()).toEqual({ deferred: ACK });
    expect(told).toEqual(["recordDeferral breaker_open", "resend"]);
  });

  it("defers an event over a limit and gives its probe back", async () => {
    const { told, pass } = gateWorld({ admission: { verdict: "probe" }, limit: "defer" });
    expect(await pass()).toEqual({ deferred: ACK });
    expect(told).toEqual(["recordDeferral concurrency_limit", "resend", `abandonProbe ${KEY}`]);
  });

  it("gives the probe back when the deferral over a limit fails", async () => {
    const { told, pass } = gateWorld({
      admission: { verdict: "probe" },
      limit: "defer",
      resendFails: true,
    });
    await expect(pass()).rejects.toThrow("queue unreachable");
    expect(told).toEqual(["recordDeferral concurrency_limit", `abandonProbe ${KEY}`]);
  });

  it("lets an event past its deadline through an open breaker to the claim, telling the breaker nothing after", async () => {
    const { told, pass } = gateWorld({
      admission: { verdict: "defer", untilMs: NOW + 30_000 },
      deadlineSeconds: 60,
    });
    const gate = await pass();
    if ("deferred" in gate) throw new Error("expected a pass");
    await gate.during(taking(finished(OutcomeClass.PERMANENT, undefined)));
    expect(told).toEqual([]);
  });

  describe("an event its learned limit turns away", () => {
    // Deadline 180 s after the record's creation two minutes ago: NOW + 60 s.
    const deadlineSeconds = 180;

    it.each<[string, number, LimitAdmission["verdict"], string[]]>([
      [
        "is deferred when the limit lets it through before its deadline",
        NOW + 59_000,
        "call",
        ["recordDeferral rate_limit", "resend"],
      ],
      [
        "is called once when the limit would hold it to its deadline, past which it dies untried",
        NOW + 60_000,
        "call",
        [],
      ],
      [
        "is still deferred then by a declared limit, a promise to the partner",
        NOW + 60_000,
        "defer",
        ["recordDeferral concurrency_limit", "resend"],
      ],
    ])("%s", async (_name, learnedUntilMs, limit, expected) => {
      const { told, pass, reads } = gateWorld({
        admission: { verdict: "call" },
        limit,
        deadlineSeconds,
        learnedUntilMs,
      });
      const gate = await pass();
      expect(told).toEqual(expected);
      expect("deferred" in gate).toBe(expected.length > 0);
      // The deadline's record is read once, for the last chance and the deferral both.
      expect(reads.count).toBe(1);
    });
  });
});
