import { describe, expect, it } from "vitest";
import { auditCaller, callerFieldOnce, describeCaller, onceCaller } from "../../lib/core/caller.js";
import { CallerSource } from "../../lib/core/record.js";
import { ANA_CALLER, countingCallerIdentity } from "../support/counting-caller-identity.js";

describe("auditCaller", () => {
  it("records what the identity reports", async () => {
    expect(await auditCaller(countingCallerIdentity(async () => ANA_CALLER).identity)).toEqual(
      ANA_CALLER,
    );
  });

  it("turns a lookup that throws despite its contract into an unverified caller saying why", async () => {
    const { identity } = countingCallerIdentity(async () => {
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
    const { identity, lookups } = countingCallerIdentity(async () => ANA_CALLER);
    const caller = onceCaller(identity);
    expect(lookups()).toBe(0);
    const answers = await Promise.all([caller(), caller(), caller()]);
    expect(answers).toEqual([ANA_CALLER, ANA_CALLER, ANA_CALLER]);
    expect(lookups()).toBe(1);
  });
});

describe("callerFieldOnce", () => {
  it("gives no field without an identity, as entries from before callers were recorded", async () => {
    expect(await callerFieldOnce(undefined)()).toEqual({});
  });

  it("gives every entry the same caller field, asked once", async () => {
    const { identity, lookups } = countingCallerIdentity();
    const field = callerFieldOnce(identity);
    expect([await field(), await field()]).toEqual([
      { caller: ANA_CALLER },
      { caller: ANA_CALLER },
    ]);
    expect(lookups()).toBe(1);
  });
});

describe("describeCaller", () => {
  it.each([
    [
      "a verified operator",
      ANA_CALLER,
      "arn:aws:iam::123456789012:user/ana (operator's credentials)",
    ],
    [
      "the operator function's role",
      { ...ANA_CALLER, source: CallerSource.FUNCTION_ROLE, arn: "arn:aws:sts::1:assumed-role/r/s" },
      "arn:aws:sts::1:assumed-role/r/s (operator function's role)",
    ],
    [
      "an unverified operator",
      { source: CallerSource.OPERATOR, unverified: "no STS here" },
      "unverified: no STS here (operator's credentials)",
    ],
    [
      "an older release's caller, one string with no source",
      { recorded: "arn:aws:iam::123456789012:user/ana" },
      "arn:aws:iam::123456789012:user/ana",
    ],
    ["an entry from before callers were recorded", undefined, ""],
  ] as const)("shows %s", (_label, caller, shown) => {
    expect(describeCaller(caller)).toBe(shown);
  });
});
