import { describe, expect, it } from "vitest";
import { auditCaller, describeCaller, onceCaller } from "../../lib/core/caller.js";
import type { CallerIdentity } from "../../lib/core/ports.js";
import { type AuditCaller, CallerSource } from "../../lib/core/record.js";

const ANA: AuditCaller = {
  source: CallerSource.OPERATOR,
  arn: "arn:aws:iam::123456789012:user/ana",
  account: "123456789012",
  userId: "AIDAEXAMPLE",
};

/** An identity answering `answer` (or throwing it), counting its lookups. */
const countingIdentity = (answer: () => Promise<AuditCaller>) => {
  let lookups = 0;
  const identity: CallerIdentity = {
    source: CallerSource.OPERATOR,
    lookup: () => {
      lookups += 1;
      return answer();
    },
  };
  return { identity, lookups: () => lookups };
};

describe("auditCaller", () => {
  it("records what the identity reports", async () => {
    expect(await auditCaller(countingIdentity(async () => ANA).identity)).toEqual(ANA);
  });

  it("turns a lookup that throws despite its contract into an unverified caller saying why", async () => {
    const { identity } = countingIdentity(async () => {
      throw new Error("socket hang up");
    });
    expect(await auditCaller(identity)).toEqual({
      source: CallerSource.OPERATOR,
      unverified: "caller lookup failed: socket hang up",
    });
  });
});

describe("onceCaller", () => {
  it("asks nothing until first used, then once however many entries it names", async () => {
    const { identity, lookups } = countingIdentity(async () => ANA);
    const caller = onceCaller(identity);
    expect(lookups()).toBe(0);
    const answers = await Promise.all([caller(), caller(), caller()]);
    expect(answers).toEqual([ANA, ANA, ANA]);
    expect(lookups()).toBe(1);
  });
});

describe("describeCaller", () => {
  it.each([
    ["a verified operator", ANA, "arn:aws:iam::123456789012:user/ana (operator's credentials)"],
    [
      "the redrive function's role",
      { ...ANA, source: CallerSource.FUNCTION_ROLE, arn: "arn:aws:sts::1:assumed-role/r/s" },
      "arn:aws:sts::1:assumed-role/r/s (redrive function's role)",
    ],
    [
      "an unverified operator",
      { source: CallerSource.OPERATOR, unverified: "no STS here" },
      "unverified: no STS here (operator's credentials)",
    ],
    ["an entry from before callers were recorded", undefined, ""],
  ] as const)("shows %s", (_label, caller, shown) => {
    expect(describeCaller(caller)).toBe(shown);
  });
});
