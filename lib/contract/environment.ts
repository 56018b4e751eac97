/*
 * The names the construct (lib/infra) and the functions (lib/runtime) must agree on: one module
 * both read, so a renamed variable cannot leave one side behind.
 */

/**
 * The environment variables the Lambda functions (and local runs) read. The CDK construct sets
 * exactly these; `npm start` sets them from the synthesized template.
 */
export const ENV = {
  TABLE_NAME: "RICOCHET_TABLE_NAME",
  INGRESS_QUEUE_URL: "RICOCHET_INGRESS_QUEUE_URL",
  /** Ricochet's own queue (retries, hops, redrives); only Ricochet's roles may send to it. */
  INTERNAL_QUEUE_URL: "RICOCHET_INTERNAL_QUEUE_URL",
  DEAD_LETTER_QUEUE_URL: "RICOCHET_DEAD_LETTER_QUEUE_URL",
  /** JSON of a policy override applied over the default policy (`DEFAULT_POLICY`, lib/core/policy.ts). */
  DEFAULT_POLICY: "RICOCHET_DEFAULT_POLICY",
  /** Comma-separated hosts or CIDR ranges that HTTP targets may reach despite the default refusals. */
  ALLOWED_TARGET_HOSTS: "RICOCHET_ALLOWED_TARGET_HOSTS",
  /** Longest single SQS delay used for a hop towards a later `notBefore` (at most 900). */
  HOP_SECONDS: "RICOCHET_HOP_SECONDS",
  /** How long past due a waiting event must be to count as stuck (seconds; lib/core/stuck.ts). */
  STUCK_AFTER_SECONDS: "RICOCHET_STUCK_AFTER_SECONDS",
  /** Days a finished record is kept before DynamoDB's TTL removes it. */
  RECORD_RETENTION_DAYS: "RICOCHET_RECORD_RETENTION_DAYS",
  /** ARN of a Secrets Manager secret, or an SSM parameter name, holding the HMAC signing key. */
  SIGNING_SECRET: "RICOCHET_SIGNING_SECRET",
  /**
   * `on` (default) or `off`: whether signed deliveries also carry the legacy `Ricochet-Signature`
   * and `Ricochet-Timestamp` beside the Standard Webhooks headers.
   */
  LEGACY_SIGNATURES: "RICOCHET_LEGACY_SIGNATURES",
  /**
   * `off` (default) or `on`: whether each target's call rate is learned from its 429s, 503s,
   * `Retry-After` and latency, and held to it (`adaptiveLimits`; lib/app/orchestrator/adaptive-limits.ts).
   */
  ADAPTIVE_LIMITS: "RICOCHET_ADAPTIVE_LIMITS",
  /**
   * `off` (default), `on` (OpenTelemetry spans exported over OTLP/HTTP to
   * `OTEL_EXPORTER_OTLP_ENDPOINT`) or `console` (spans printed, for local runs).
   */
  TRACING: "RICOCHET_TRACING",
  /** Comma-separated extra header names treated as secrets (never logged or recorded). */
  SECRET_HEADERS: "RICOCHET_SECRET_HEADERS",
  /** How many messages of a batch are attempted at once. */
  MESSAGE_CONCURRENCY: "RICOCHET_MESSAGE_CONCURRENCY",
  /** JSON `{ maxAttempts, minBaseDelaySeconds }`: the bounds every event's policy is clamped to. */
  POLICY_LIMITS: "RICOCHET_POLICY_LIMITS",
  /** The deployment's AWS account id: a Lambda ARN naming another account must be listed. */
  ACCOUNT_ID: "RICOCHET_ACCOUNT_ID",
  /**
   * The operator function's name, refused as a Lambda target. Only the orchestrator gets it: the
   * operator function naming itself would be a CloudFormation dependency cycle.
   */
  OPERATOR_FUNCTION_NAME: "RICOCHET_OPERATOR_FUNCTION_NAME",
  /** Comma-separated ARNs of the Lambda targets the deployment lists (`lambdaTargets`). */
  LAMBDA_TARGETS: "RICOCHET_LAMBDA_TARGETS",
  /**
   * The targets' circuit breakers: unset or `off` (none), `on` (the defaults), or JSON overrides
   * of the defaults (`lib/core/circuit-breaker.ts`).
   */
  CIRCUIT_BREAKER: "RICOCHET_CIRCUIT_BREAKER",
  /**
   * JSON `{ defaults?, overrides?: { <target key>: … } }`: per-target limits
   * (`maxConcurrentCalls`, `maxCallsPerSecond`) and breaker settings
   * (`lib/core/target-settings.ts`). Unset: no limits, every breaker on the breakers' settings.
   */
  TARGETS: "RICOCHET_TARGETS",
  /** Comma-separated target keys whose outcomes get metrics of their own (`targetMetrics`). */
  TARGET_METRICS: "RICOCHET_TARGET_METRICS",
} as const;

/** Variables the Lambda runtime sets itself; read, never set by the construct. */
export const LAMBDA_RUNTIME_ENV = {
  /** The running function's own name: the orchestrator refuses to invoke itself. */
  FUNCTION_NAME: "AWS_LAMBDA_FUNCTION_NAME",
} as const;

/**
 * Former names of the wiring variables, still read when the current one is unset, so a function
 * deployed with an older construct keeps working. A setting's former name is in its entry in
 * lib/contract/settings.ts.
 */
export const ENV_ALIASES = {
  [ENV.OPERATOR_FUNCTION_NAME]: "RICOCHET_REDRIVE_FUNCTION_NAME",
} as const;
