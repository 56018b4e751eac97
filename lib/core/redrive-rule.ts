import type { EventRecord } from "./record.js";
import { EventStatus } from "./status.js";

/**
 * Whether a redrive to `generation` may move this record back to `pending`. It may when the
 * record is one generation below and either terminal without delivery (`dead_lettered`,
 * `rejected`; never `cancelled`) or stranded: waiting, or in flight with its lease expired, because the message
 * that would have moved it on was parked by the queue's native redrive. A live lease or a
 * delivery always wins. No record at all (expired by TTL) may be recreated.
 *
 * The DynamoDB store states the same rule as a condition expression; the simulation's memory
 * store calls this function. Change both together: a property test on DynamoDB Local holds the
 * two equal (test/adapters/dynamo-event-store/conditions.rules.integration.test.ts).
 */
export const mayRedrive = (
  record: EventRecord | undefined,
  generation: number,
  nowMs: number,
): boolean => {
  if (record === undefined) return true;
  if (record.generation !== generation - 1) return false;
  switch (record.status) {
    case EventStatus.DEAD_LETTERED:
    case EventStatus.REJECTED:
    case EventStatus.PENDING:
    case EventStatus.RETRY_SCHEDULED:
    case EventStatus.SCHEDULED:
      return true;
    case EventStatus.IN_FLIGHT:
      return (record.leaseExpiresAt ?? 0) < nowMs;
    case EventStatus.DELIVERED:
    case EventStatus.CANCELLED:
      return false;
  }
};
