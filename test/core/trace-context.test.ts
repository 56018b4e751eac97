import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  formatTraceparent,
  parseTraceparent,
  parseTracestate,
  replayTraceContext,
  traceContextFrom,
} from "../../lib/core/trace-context.js";

const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const SPAN = "00f067aa0ba902b7";

describe("a producer's trace context", () => {
  it.each([
    [
      "a version 00 header",
      `00-${TRACE}-${SPAN}-01`,
      { traceId: TRACE, parentId: SPAN, sampled: true },
    ],
    [
      "an unsampled one",
      `00-${TRACE}-${SPAN}-00`,
      { traceId: TRACE, parentId: SPAN, sampled: false },
    ],
    [
      "upper case, normalised",
      `00-${TRACE.toUpperCase()}-${SPAN}-01`,
      { traceId: TRACE, parentId: SPAN, sampled: true },
    ],
    [
      "a later version with more fields",
      `01-${TRACE}-${SPAN}-03-extra`,
      { traceId: TRACE, parentId: SPAN, sampled: true },
    ],
  ])("reads %s", (_, header, expected) => {
    expect(parseTraceparent(header)).toEqual(expected);
  });

  it.each([
    ["an empty value", ""],
    ["garbage", "not a traceparent"],
    ["version ff", `ff-${TRACE}-${SPAN}-01`],
    ["version 00 with a suffix", `00-${TRACE}-${SPAN}-01-x`],
    ["an all-zero trace id", `00-${"0".repeat(32)}-${SPAN}-01`],
    ["an all-zero parent id", `00-${TRACE}-${"0".repeat(16)}-01`],
    ["a short trace id", `00-${TRACE.slice(1)}-${SPAN}-01`],
    ["non-hex digits", `00-${TRACE.replace("4", "g")}-${SPAN}-01`],
    ["an oversized header", `01-${TRACE}-${SPAN}-01-${"a".repeat(100_000)}`],
    ["a header with a newline", `00-${TRACE}-${SPAN}-01\n-x`],
  ])("ignores %s", (_, header) => {
    expect(parseTraceparent(header)).toBeUndefined();
  });

  it.each([
    ["one member", "rojo=00f067aa0ba902b7", "rojo=00f067aa0ba902b7"],
    ["members with spaces", "rojo=1 , congo=t61rcWkgMzE", "rojo=1,congo=t61rcWkgMzE"],
    ["a tenant key", "t@vendor=x", "t@vendor=x"],
  ])("keeps a tracestate of %s", (_, header, expected) => {
    expect(parseTracestate(header)).toBe(expected);
  });

  it.each([
    ["a member without a value", "rojo"],
    ["an upper-case key", "Rojo=1"],
    ["a value with a comma escape", "rojo=a=b"],
    ["a control character", "rojo=\u0007"],
    ["an oversized list", `rojo=${"a".repeat(600)}`],
    ["too many members", Array.from({ length: 33 }, (_, i) => `k${i}=v`).join(",")],
  ])("drops a tracestate with %s", (_, header) => {
    expect(parseTracestate(header)).toBeUndefined();
  });

  it("reads X-Ray's header when there is no traceparent", () => {
    expect(
      traceContextFrom({
        awsTraceHeader: `Root=1-${TRACE.slice(0, 8)}-${TRACE.slice(8)};Parent=${SPAN};Sampled=1`,
      }),
    ).toEqual({ traceId: TRACE, parentId: SPAN, sampled: true });
  });

  it.each([
    ["no Parent", `Root=1-${TRACE.slice(0, 8)}-${TRACE.slice(8)};Sampled=1`],
    ["a bad Root", `Root=2-${TRACE.slice(0, 8)}-${TRACE.slice(8)};Parent=${SPAN}`],
    ["garbage", ";;==;"],
  ])("ignores an X-Ray header with %s", (_, header) => {
    expect(traceContextFrom({ awsTraceHeader: header })).toBeUndefined();
  });

  it.each([
    ["a number", 42],
    ["an object", { traceparent: "x" }],
    ["null", null],
  ])(
    "ignores carriers that are %s, as a dead-letter copy anyone could write may hold",
    (_, value) => {
      expect(
        traceContextFrom({ traceparent: value, tracestate: value, awsTraceHeader: value }),
      ).toBeUndefined();
    },
  );

  it("prefers traceparent to X-Ray's header and keeps a valid tracestate", () => {
    const other = `Root=1-11111111-${"1".repeat(24)};Parent=${"1".repeat(16)};Sampled=1`;
    expect(
      traceContextFrom({
        traceparent: `00-${TRACE}-${SPAN}-01`,
        tracestate: "rojo=1",
        awsTraceHeader: other,
      }),
    ).toEqual({ traceId: TRACE, parentId: SPAN, sampled: true, traceState: "rojo=1" });
  });

  it("never throws on any carrier, and what it reads formats back to itself", () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.string(), (traceparent, tracestate, xray) => {
        const context = traceContextFrom({ traceparent, tracestate, awsTraceHeader: xray });
        if (context !== undefined) {
          expect(parseTraceparent(formatTraceparent(context))).toMatchObject({
            traceId: context.traceId,
            parentId: context.parentId,
          });
        }
      }),
    );
  });

  it("formats a valid context back to the header it came from", () => {
    const hex = (n: number) => fc.stringMatching(new RegExp(`^[0-9a-f]{${n}}$`));
    fc.assert(
      fc.property(hex(32), hex(16), fc.boolean(), (traceId, parentId, sampled) => {
        fc.pre(!/^0+$/.test(traceId) && !/^0+$/.test(parentId));
        const header = formatTraceparent({ traceId, parentId, sampled });
        expect(parseTraceparent(header)).toEqual({ traceId, parentId, sampled });
      }),
    );
  });
});

describe("a replay's trace context", () => {
  it.each<[string, string | undefined]>([
    ["no trace id on the record", undefined],
    ["an all-zero trace id", "0".repeat(32)],
    ["a short trace id", "4bf92f35"],
    ["a trace id with a header smuggled after it", `${TRACE}-${SPAN}-01\r\nx-evil: 1`],
    ["a trace id that is not hex", "z".repeat(32)],
  ])("is none for %s", (_name, traceId) => {
    expect(replayTraceContext(traceId, "order-1", 1)).toBeUndefined();
  });

  it("keeps the record's trace id, is sampled, and names a parent of its own", () => {
    const context = replayTraceContext(TRACE, "order-1", 3);
    expect(context).toMatchObject({ traceId: TRACE, sampled: true });
    expect(context?.parentId).toMatch(/^[0-9a-f]{16}$/);
    expect(context?.traceState).toBeUndefined();
  });

  it.each<[string, string, number]>([
    ["another generation", "order-1", 4],
    ["another event", "order-2", 3],
  ])("names another parent for %s, and the same one on every run", (_name, eventId, generation) => {
    const parent = (id: string, g: number) => replayTraceContext(TRACE, id, g)?.parentId;
    expect(parent(eventId, generation)).toBe(parent(eventId, generation));
    expect(parent(eventId, generation)).not.toBe(parent("order-1", 3));
  });
});
