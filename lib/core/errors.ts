/**
 * Every error Ricochet raises on purpose derives from {@link RicochetError}, so callers can tell
 * our failures (bad input, lost races, missing resources) from bugs. Adapters translate AWS SDK
 * errors into these at one place each; nothing above the adapters sees an AWS error class.
 */

/** A single problem found in some input, located by its path (`target.url`, `policy.maxAttempts`). */
export interface InputProblem {
  readonly path: string;
  readonly message: string;
  /**
   * The id of the orchestrator-only check that found it (`lib/core/orchestrator-only-checks.ts`),
   * when the published JSON Schema cannot find it.
   */
  readonly check?: string | undefined;
}

/** Base class of all Ricochet errors. `context` carries what is needed to understand the failure. */
export class RicochetError extends Error {
  public readonly context: Readonly<Record<string, unknown>>;

  public constructor(
    message: string,
    options: { cause?: unknown; context?: Record<string, unknown> } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.context = options.context ?? {};
  }
}

/** What a thrown value says: an Error's message, anything else as a string. */
export const errorMessage = (error: unknown): string =>
  error instanceof Error ? error.message : String(error);

/** What a thrown value says, with an Error's class name first (`TypeError: …`). */
export const errorWithName = (error: unknown): string =>
  error instanceof Error ? `${error.name}: ${error.message}` : String(error);

/** Formats problems as one line: `target.url: Invalid URL; policy.maxAttempts: Too small`. */
export const formatProblems = (problems: readonly InputProblem[]): string =>
  problems.map((p) => (p.path === "" ? p.message : `${p.path}: ${p.message}`)).join("; ");

/** An envelope (the producer's message) failed validation. Lists every problem, not the first. */
export class InvalidEnvelopeError extends RicochetError {
  public readonly problems: readonly InputProblem[];

  public constructor(problems: readonly InputProblem[], options: { eventId?: string } = {}) {
    super(`invalid envelope: ${formatProblems(problems)}`, { context: { ...options } });
    this.problems = problems;
  }
}

/** A retry policy (deployment default or per-event override) is not usable. */
export class InvalidPolicyError extends RicochetError {
  public readonly problems: readonly InputProblem[];

  public constructor(problems: readonly InputProblem[]) {
    super(`invalid retry policy: ${formatProblems(problems)}`);
    this.problems = problems;
  }
}

/** The event state machine was asked to make a move it does not allow. */
export class IllegalTransitionError extends RicochetError {
  public constructor(
    public readonly from: string,
    public readonly to: string,
  ) {
    super(`illegal status transition ${from} -> ${to}`, { context: { from, to } });
  }
}

/** Operator configuration (environment, CLI flags, construct props) is wrong. */
export class ConfigurationError extends RicochetError {}

/** A resource Ricochet needs (queue, table, stack) does not exist or cannot be reached. */
export class ResourceNotFoundError extends RicochetError {}

/** The attempt store failed in a way that is not a lost race (throttling, outage, bad request). */
export class StoreUnavailableError extends RicochetError {}

/** A queue call failed (throttling, outage, message rejected). */
export class QueueUnavailableError extends RicochetError {}

/** A message (body and attributes together) is larger than SQS accepts. */
export class MessageTooLargeError extends RicochetError {
  public constructor(
    public readonly bytes: number,
    public readonly limit: number,
  ) {
    super(`message is ${bytes} bytes; the SQS limit is ${limit}`, { context: { bytes, limit } });
  }
}

/** A local emulator (fauxqs, DynamoDB Local) did not start or never answered. */
export class EmulatorStartError extends RicochetError {}

/** An operator's request (a redrive, a CLI argument set) is invalid; nothing was done. */
export class InvalidRequestError extends RicochetError {
  public readonly problems: readonly InputProblem[];

  public constructor(what: string, problems: readonly InputProblem[]) {
    super(`invalid ${what}: ${formatProblems(problems)}`);
    this.problems = problems;
  }
}

/** The deployed operator function could not be invoked, failed, or answered with no report. */
export class OperatorFunctionError extends RicochetError {}

/**
 * @deprecated The former name of {@link OperatorFunctionError}, the same class (so `instanceof`
 * either holds); use `OperatorFunctionError`.
 * @alias The deliberate second name of a renamed export (knip would report it a duplicate).
 */
export const RedriveFunctionError = OperatorFunctionError;
/** @deprecated The former name of {@link OperatorFunctionError}; use `OperatorFunctionError`. */
export type RedriveFunctionError = OperatorFunctionError;

/** A secret Ricochet needs (the signing key) could not be read from its store. */
export class SecretUnavailableError extends RicochetError {}

/**
 * An operator action (cancel, replay) was refused for some of the events it named, each for a
 * reason the report gives; the others were done. Nothing is wrong with the deployment.
 */
export class ActionRefusedError extends RicochetError {}

/** An operator action could not be done for some events (an AWS call failed); trying again is safe. */
export class ActionFailedError extends RicochetError {}
