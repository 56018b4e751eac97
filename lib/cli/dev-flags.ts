/** The flags of `ricochet dev`. */
export interface DevFlags {
  readonly demo: boolean;
  readonly once: boolean;
  readonly json: boolean;
  readonly events: number;
  readonly seed?: number;
  /** Unset when the flag is not given (a default would print as "[]" in the help). */
  readonly allowHost?: readonly string[];
  /** `--circuit-breaker`: `on`, `off` or JSON settings; unset: the template's (or the env's). */
  readonly circuitBreaker?: string;
}
