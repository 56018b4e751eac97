/** Placeholder shapes until lib/redrive defines the real request and report. */
type RedriveRequest = Readonly<Record<string, unknown>>;
type RedriveReport = Readonly<Record<string, unknown>>;

/** Placeholder so the CDK app synthesizes; the redrive's owner replaces it. */
export const handler = async (_request: RedriveRequest): Promise<RedriveReport> => {
  throw new Error("not implemented");
};
