import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { InvalidRequestError } from "../../lib/core/errors.js";
import { traceOfSubmission } from "../../lib/core/submit-trace.js";
import { formatTraceparent } from "../../lib/core/trace-context.js";

const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const SPAN_ID = "00f067aa0ba902b7";
const TRACEPARENT = `00-${TRACE_ID}-${SPAN_ID}-01`;

describe("traceOfSubmission", () => {
  it.each<[string, unknown, ReturnType<typeof traceOfSubmission>]>([
    ["no trace option: no context", undefined, undefined],
    ["an empty carrier (no active span): no context", {}, undefined],
    [
      "a traceparent, sampled",
      { traceparent: TRACEPARENT },
      { traceId: TRACE_ID, parentId: SPAN_ID, sampled: true },
    ],
    [
      "a traceparent, not sampled",
      { traceparent: `00-${TRACE_ID}-${SPAN_ID}-00` },
      { traceId: TRACE_ID, parentId: SPAN_ID, sampled: false },
    ],
    [
      "a traceparent in upper case, normalised",
      { traceparent: TRACEPARENT.toUpperCase() },
      { traceId: TRACE_ID, parentId: SPAN_ID, sampled: true },
    ],
    [
      "a traceparent and a tracestate",
      { traceparent: TRACEPARENT, tracestate: "congo=t61rcWkgMzE, rojo=00f067aa0ba902b7" },
      {
        traceId: TRACE_ID,
        parentId: SPAN_ID,
        sampled: true,
        traceState: "congo=t61rcWkgMzE,rojo=00f067aa0ba902b7",
      },
    ],
    [
      "an empty tracestate, as none",
      { traceparent: TRACEPARENT, tracestate: "" },
      { traceId: TRACE_ID, parentId: SPAN_ID, sampled: true },
    ],
  ])("reads %s", (_name, trace, expected) => {
    expect(traceOfSubmission(trace)).toEqual(expected);
  });

  it.each<[string, unknown, string]>([
    ["a string instead of a carrier", TRACEPARENT, "invalid trace: must be an object"],
    ["null", null, "invalid trace: must be an object"],
    ["an array", [TRACEPARENT], "invalid trace: must be an object"],
    ["a traceparent that is not one", { traceparent: "abc" }, "traceparent: must be a W3C"],
    [
      "an all-zero trace id",
      { traceparent: `00-${"0".repeat(32)}-${SPAN_ID}-01` },
      "traceparent: must be a W3C",
    ],
    [
      "an all-zero span id",
      { traceparent: `00-${TRACE_ID}-${"0".repeat(16)}-01` },
      "traceparent: must be a W3C",
    ],
    ["version ff", { traceparent: `ff-${TRACE_ID}-${SPAN_ID}-01` }, "traceparent: must be a W3C"],
    ["a number as traceparent", { traceparent: 7 }, "traceparent: must be a W3C"],
    [
      "a tracestate without a traceparent",
      { tracestate: "congo=t61rcWkgMzE" },
      "tracestate: cannot be given without a traceparent",
    ],
    [
      "a malformed tracestate",
      { traceparent: TRACEPARENT, tracestate: "not a member" },
      "tracestate: must be a W3C tracestate",
    ],
    [
      "a tracestate of 33 members",
      {
        traceparent: TRACEPARENT,
        tracestate: Array.from({ length: 33 }, (_, i) => `k${i}=v`).join(","),
      },
      "tracestate: must be a W3C tracestate",
    ],
  ])("refuses %s, saying why", (_name, trace, message) => {
    const error = (() => {
      try {
        traceOfSubmission(trace);
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect((error as Error).message).toContain(message);
  });

  it("shows at most the start of a long refused value, escaped", () => {
    const hostile = `\u001b[31m${"x".repeat(10_000)}`;
    const message = (() => {
      try {
        traceOfSubmission({ traceparent: hostile });
        return "";
      } catch (error) {
        return (error as Error).message;
      }
    })();
    expect(message).toContain("(10005 characters)");
    expect(message.length).toBeLessThan(400);
    expect(message).not.toContain("\u001b");
  });

  it("hands on every valid context as the traceparent it was given", () => {
    const hex = (length: number) =>
      fc.stringMatching(new RegExp(`^[0-9a-f]{${length}}$`)).filter((value) => !/^0+$/.test(value));
    fc.assert(
      fc.property(hex(32), hex(16), fc.boolean(), (traceId, spanId, sampled) => {
        const traceparent = `00-${traceId}-${spanId}-${sampled ? "01" : "00"}`;
        const context = traceOfSubmission({ traceparent });
        expect(context && formatTraceparent(context)).toBe(traceparent);
      }),
    );
  });
});
