import type { IncomingHttpHeaders } from "node:http";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { replayEvents } from "../../../lib/app/operator/replay.js";
import { createHmacSigner } from "../../../lib/core/signing.js";
import { EventStatus } from "../../../lib/core/status.js";
import { verifyDelivery } from "../../../lib/receiver.js";
import { anEventId } from "../../support/factories.js";
import { useOrchestratorHarness } from "../../support/orchestrator-harness.js";
import type { ReceivedCall } from "../../support/scripted-receiver.js";

/*
 * Someone who captured Ricochet's signed deliveries on the way to a receiver, replaying them
 * within the timestamp window with the headers changed. The receiver is built as
 * lib/receiver.ts and the README advise: verifyDelivery, then deduplicate on what it vouches for.
 * Real emulators, real poller, real HTTP deliveries; the forgeries are sent to the receiver's code.
 */

const h = useOrchestratorHarness("hostile-receiver");

const KEY = `whsec_${Buffer.alloc(32, 5).toString("base64")}`;
const LEGACY_KEY = "hostile-receiver-legacy-key";

/** The advised receiver: what it processed, and why it refused the rest. */
const adviseReceiver = () => {
  const processed: string[] = [];
  const refusals: string[] = [];
  const seen = new Set<string>();
  const receive = (headers: IncomingHttpHeaders, body: string): void => {
    const check = verifyDelivery({
      secret: KEY,
      headers,
      body,
      nowSeconds: Math.floor(Date.now() / 1000),
    });
    if (!check.ok) {
      refusals.push(check.reason);
      return;
    }
    if (seen.has(check.webhookId)) return;
    seen.add(check.webhookId);
    processed.push(check.webhookId);
  };
  return { processed, refusals, receive };
};

const headersWith = (
  call: ReceivedCall,
  changes: Record<string, string | undefined>,
): IncomingHttpHeaders => {
  const headers: IncomingHttpHeaders = { ...call.headers };
  for (const [name, value] of Object.entries(changes)) {
    if (value === undefined) delete headers[name];
    else headers[name] = value;
  }
  return headers;
};

describe("a captured signed delivery cannot be replayed past the receiver's de-duplication", () => {
  it("processes each genuine message once and refuses every altered copy with a reason", async () => {
    const eventId = `order.${anEventId("sig")}`;
    const envelope = h.envelope(eventId, { maxAttempts: 2 });
    await h.startWorkers({
      signer: createHmacSigner(async () => `${KEY} ${LEGACY_KEY}`, Date.now),
    });
    await h.submit([envelope]);
    await h.waitForStatus(eventId, EventStatus.DELIVERED);
    await replayEvents(h.replayDeps(), {
      eventIds: [eventId],
      envelopes: [envelope],
      by: "ops",
      reason: "receiver lost the order",
    });
    await h.waitFor(() => h.receiver.callsFor(eventId).length === 2);
    const [original, replayed] = h.receiver.callsFor(eventId);
    if (original === undefined || replayed === undefined) throw new Error("calls missing");

    // Any Standard Webhooks library verifies them, and the two are two messages.
    for (const call of [original, replayed]) {
      expect(() =>
        new Webhook(KEY).verify(call.body, call.headers as Record<string, string>),
      ).not.toThrow();
    }

    const receiver = adviseReceiver();
    const captured = [original, replayed];
    for (const call of captured) receiver.receive(call.headers, call.body);
    const forgeries: [string, IncomingHttpHeaders][] = [
      ["the same request again", original.headers],
      ["a changed Idempotency-Key", headersWith(original, { "idempotency-key": `${eventId}-2` })],
      ["an added Ricochet-Replay", headersWith(original, { "ricochet-replay": "7" })],
      ["a bumped Ricochet-Replay", headersWith(replayed, { "ricochet-replay": "2" })],
      [
        "a webhook-id naming another replay",
        headersWith(replayed, { "webhook-id": String(original.headers["webhook-id"]) }),
      ],
      [
        "the Standard Webhooks headers stripped (legacy only)",
        headersWith(original, {
          "webhook-id": undefined,
          "webhook-timestamp": undefined,
          "webhook-signature": undefined,
        }),
      ],
    ];
    for (const [, headers] of forgeries) receiver.receive(headers, original.body);

    expect(receiver.processed).toEqual([
      String(original.headers["webhook-id"]),
      String(replayed.headers["webhook-id"]),
    ]);
    // Every copy but the exact duplicate (which de-duplication absorbs) is refused, with its reason.
    expect(receiver.refusals).toEqual([
      "header_mismatch",
      "header_mismatch",
      "header_mismatch",
      "signature_mismatch",
      "legacy_signature_refused",
    ]);
  });
});
