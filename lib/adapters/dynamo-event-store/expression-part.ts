/**
 * A piece of a DynamoDB expression with the placeholders it uses. DynamoDB refuses a request
 * naming a placeholder its expressions do not use, so each part carries exactly its own.
 */
export interface ExpressionPart {
  readonly expression: string;
  readonly values: Readonly<Record<string, unknown>>;
  /** Attribute-name placeholders (`#status`: `status` is a reserved word). */
  readonly names?: Readonly<Record<string, string>>;
}
