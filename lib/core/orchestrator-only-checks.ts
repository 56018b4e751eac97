/*
 * The published JSON Schema (schema/envelope.schema.json) is the contract producers in other
 * languages validate against: what it accepts, the orchestrator accepts, and what the
 * orchestrator refuses for an envelope's shape, the schema refuses, except for the checks below,
 * which only the orchestrator can make. This is their one declaration: the validator tags each
 * problem of the first four with its id (`InputProblem.check`), the schema-agreement property
 * test allows a disagreement only where every problem carries one, and the README's list is
 * checked against this one.
 */

/** One check only the orchestrator can make, and why no JSON Schema can. */
export interface OrchestratorOnlyCheck {
  /** The tag on the problems this check reports. */
  readonly id: string;
  /** What is checked, as the README lists it (Markdown). */
  readonly rule: string;
  /** Why a JSON Schema cannot say it. */
  readonly why: string;
}

const check = (id: string, rule: string, why: string): OrchestratorOnlyCheck => ({ id, rule, why });

/** The checks only the orchestrator can make, by name. */
export const OrchestratorOnlyChecks = {
  PAYLOAD_DEPTH: check(
    "payload_depth",
    "`payload` nests at most 64 levels deep (`invalid_envelope`)",
    "JSON Schema has no keyword for a document's depth.",
  ),
  NOT_BEFORE_AFTER_DEADLINE: check(
    "not_before_after_deadline",
    "`notBefore` is not after `deadline` (`invalid_envelope`)",
    "JSON Schema cannot compare two fields.",
  ),
  URL_HOST: check(
    "url_host",
    "an HTTP URL's host is one a URL parser reads: a last label that is a number must be an IPv4 address (`10.0.0.7`, `167772167`, `0x7f.1`, not `a.1` or `10.0.0.256`), an `xn--` label must be Punycode (`invalid_envelope`)",
    "a pattern cannot check the range of a decimal, octal or hex number, nor decode Punycode.",
  ),
  POLICY_MERGE: check(
    "policy_merge",
    "the `policy`, merged over the deployment's, has `baseDelaySeconds` ≤ `maxDelaySeconds`, no status in both `retryOnStatus` and `noRetryOnStatus`, and not both error-type lists (`invalid_envelope`)",
    "the result depends on the deployment's own policy, and JSON Schema cannot compare two fields.",
  ),
  MESSAGE_SIZE: check(
    "message_size",
    "the message body is at most 1 MiB less 8 KiB, SQS's limit less room to dead-letter it whole (`invalid_envelope`)",
    "a schema validates the parsed document, not its bytes.",
  ),
  RESERVED_ATTRIBUTES: check(
    "reserved_attributes",
    "the message carries no `ricochet.*` message attribute (`invalid_envelope`)",
    "message attributes are not part of the body.",
  ),
  SCHEDULE: check(
    "schedule",
    "`notBefore` is at most 14 days ahead and within the policy's `deadlineSeconds` (`invalid_envelope`); an event past its `deadline` is dead-lettered `deadline` without a call",
    "they depend on the time the message arrives.",
  ),
  TARGET_POLICY: check(
    "target_policy",
    "the target is one the deployment allows: an HTTP host that resolves to a loopback, private, link-local or multicast address unless allowed, Ricochet's own functions, a Lambda ARN in another account unless listed (rejected `target_refused`, no call)",
    "they depend on the deployment and on what DNS answers when the call is made: a name that resolved to a public address when the producer checked may resolve to 169.254.169.254 later, so the address is checked at every call.",
  ),
} as const satisfies Record<string, OrchestratorOnlyCheck>;

/** Every check only the orchestrator can make. */
export const ORCHESTRATOR_ONLY_CHECKS: readonly OrchestratorOnlyCheck[] =
  Object.values(OrchestratorOnlyChecks);

/** zod `params` tagging a problem with the orchestrator-only check that reports it. */
export const checkParams = (c: OrchestratorOnlyCheck): { readonly check: string } => ({
  check: c.id,
});
