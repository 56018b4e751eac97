/**
 * Ricochet's public entry point for producers: the client that submits events, the envelope
 * schema it validates against, and the retry policy types an envelope may override; for
 * operators' automation, the client that redrives, cancels and replays through the deployed
 * operator function; for the authors of Lambda targets, the verdicts a function may answer with.
 */

export type { CancelReport } from "./app/operator/cancel.js";
export type { RedriveReport } from "./app/operator/redrive.js";
export type { ReplayReport } from "./app/operator/replay.js";
export {
  createRicochetOperatorClient,
  type RicochetOperatorClient,
  type RicochetOperatorClientOptions,
} from "./client/operator-client.js";
export {
  type AcceptedEvent,
  createRicochetClient,
  MAX_BATCH_ENTRIES,
  type RejectedEvent,
  type RicochetClient,
  type RicochetClientOptions,
  type SubmitOptions,
  type SubmitReport,
  type SubmitTrace,
} from "./client/producer-client.js";
export {
  type Envelope,
  type EnvelopeParseResult,
  EnvelopeSchema,
  EventIdSchema,
  type HttpTarget,
  type LambdaTarget,
  MAX_ENVELOPE_BYTES,
  MAX_MESSAGE_BYTES,
  parseEnvelope,
  type Target,
  validateEnvelope,
} from "./core/envelope.js";
export {
  ConfigurationError,
  type InputProblem,
  InvalidEnvelopeError,
  InvalidRequestError,
  MessageTooLargeError,
  OperatorFunctionError,
  QueueUnavailableError,
  RedriveFunctionError,
  ResourceNotFoundError,
  RicochetError,
} from "./core/errors.js";
export {
  type RicochetVerdict,
  type RicochetVerdictResult,
  VerdictErrorType,
} from "./core/lambda-verdict.js";
export {
  DEFAULT_POLICY,
  ErrorCategory,
  Jitter,
  PolicyFieldsSchema,
  type PolicyOverride,
  type RetryPolicy,
} from "./core/policy.js";
export { verifyDelivery } from "./receiver.js";
