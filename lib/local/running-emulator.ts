/** An emulator this process started and must stop. */
export interface RunningEmulator {
  readonly name: string;
  /** Base URL to give the SDK client as its endpoint. */
  readonly endpoint: string;
  /** Every process started for it (emulator and watchdog), so callers can check they are gone. */
  readonly pids: readonly number[];
  /** Stops every process and waits until they have exited. */
  stop(): Promise<void>;
}
