import { LambdaClient } from "@aws-sdk/client-lambda";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  createLambdaTarget,
  type LambdaTargetOptions,
  type RicochetClientContext,
} from "../../../lib/adapters/targets/lambda-target.js";
import type { Envelope } from "../../../lib/core/envelope.js";
import type { AttemptResult } from "../../../lib/core/outcome.js";
import { ErrorCategory } from "../../../lib/core/policy.js";
import { aLambdaTarget, anEnvelope } from "../../support/factories.js";
import {
  closedPort,
  type Handler,
  type LocalReceiver,
  startReceiver,
  startTcpServer,
} from "./local-servers.js";

/*
 * No Lambda emulator runs here, so a local HTTP server plays the Lambda Invoke API
 * (POST /2015-03-31/functions/{name}/invocations) and the real SDK client talks to it.
 */

const open: { close(): Promise<void> }[] = [];
const clients: LambdaClient[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) client.destroy();
  await Promise.all(open.splice(0).map((server) => server.close()));
});

const clientFor = (port: number): LambdaClient => {
  const client = new LambdaClient({
    endpoint: `http://127.0.0.1:${port}`,
    region: "us-east-1",
    credentials: { accessKeyId: "test", secretAccessKey: "test" },
    maxAttempts: 1,
  });
  clients.push(client);
  return client;
};

const fakeLambda = async (handler: Handler): Promise<LocalReceiver> => {
  const server = await startReceiver(handler);
  open.push(server);
  return server;
};

const invoke = (
  port: number,
  envelope: Envelope = anEnvelope({ target: aLambdaTarget() }),
  options: Omit<LambdaTargetOptions, "lambda"> = {},
  onSent?: () => void,
): Promise<AttemptResult> =>
  createLambdaTarget({ lambda: async () => clientFor(port), ...options }).deliver({
    envelope,
    attempt: 2,
    onSent,
  });

/** Answers like Lambda does for a service error: a status and a JSON body naming the type. */
const awsError =
  (status: number, type: string): Handler =>
  (_req, res) =>
    res
      .writeHead(status, { "Content-Type": "application/json" })
      .end(JSON.stringify({ __type: type, message: `${type} happened`, Type: "User" }));

describe("createLambdaTarget", () => {
  it("invokes synchronously with the payload as the event and the event id in the client context", async () => {
    const server = await fakeLambda((_req, res) =>
      res.writeHead(200, { "X-Amz-Executed-Version": "$LATEST" }).end('{"ok":true}'),
    );
    const envelope = anEnvelope({
      target: aLambdaTarget({ functionName: "order-receiver:live" }),
      payload: { orderId: "o-9", lines: [1, 2] },
    });
    const onSent = vi.fn();

    const result = await invoke(server.port, envelope, {}, onSent);

    expect(result).toMatchObject({ kind: "response", statusCode: 200, bodyExcerpt: '{"ok":true}' });
    expect(onSent).toHaveBeenCalledOnce();
    const [seen] = server.seen;
    expect(seen?.url).toBe("/2015-03-31/functions/order-receiver%3Alive/invocations");
    expect(JSON.parse(seen?.body ?? "")).toEqual({ orderId: "o-9", lines: [1, 2] });
    expect(seen?.headers["x-amz-invocation-type"]).toBe("RequestResponse");
    const context = JSON.parse(
      Buffer.from(String(seen?.headers["x-amz-client-context"]), "base64").toString("utf8"),
    ) as RicochetClientContext;
    expect(context).toEqual({ custom: { idempotencyKey: envelope.eventId, attempt: "2" } });
  });

  describe("refusing targets that would loop or leave the account", () => {
    const ACCOUNT = "123456789012";
    const rules = {
      ownFunctions: ["Ricochet-RetriesOrchestrator-AbC123", "Ricochet-RetriesRedrive-XyZ789"],
      accountId: ACCOUNT,
      allowedArns: ["arn:aws:lambda:eu-west-1:210987654321:function:partner-hook"],
    };

    it.each([
      ["the orchestrator itself, by name", "Ricochet-RetriesOrchestrator-AbC123", "own function"],
      ["the operator function, by alias", "Ricochet-RetriesRedrive-XyZ789:live", "own function"],
      [
        "the orchestrator, by full ARN",
        `arn:aws:lambda:eu-west-1:${ACCOUNT}:function:Ricochet-RetriesOrchestrator-AbC123`,
        "own function",
      ],
      [
        "an unlisted function in another account",
        "arn:aws:lambda:eu-west-1:999999999999:function:order-receiver",
        "account 999999999999",
      ],
    ])("refuses %s with no invocation sent", async (_, functionName, reason) => {
      const server = await fakeLambda((_req, res) => res.writeHead(200).end('{"ok":true}'));
      const onSent = vi.fn();

      const result = await invoke(
        server.port,
        anEnvelope({ target: aLambdaTarget({ functionName }) }),
        { rules },
        onSent,
      );

      expect(result).toMatchObject({
        kind: "error",
        category: ErrorCategory.TARGET_REFUSED,
        requestSent: false,
      });
      expect(result.kind === "error" && result.message).toMatch(
        new RegExp(`^refused lambda target .*${reason}`),
      );
      expect(server.seen).toHaveLength(0);
      expect(onSent).not.toHaveBeenCalled();
    });

    it.each([
      ["a function of the deployment's account", "order-receiver:live"],
      [
        "a listed function in another account, by alias",
        "arn:aws:lambda:eu-west-1:210987654321:function:partner-hook:prod",
      ],
    ])("invokes %s", async (_, functionName) => {
      const server = await fakeLambda((_req, res) => res.writeHead(200).end('{"ok":true}'));
      const result = await invoke(
        server.port,
        anEnvelope({ target: aLambdaTarget({ functionName }) }),
        { rules },
      );
      expect(result).toMatchObject({ kind: "response", statusCode: 200 });
      expect(server.seen).toHaveLength(1);
    });
  });

  it("reports a client that cannot be loaded as an error with nothing sent", async () => {
    const onSent = vi.fn();
    const target = createLambdaTarget({
      lambda: () => Promise.reject(new Error("credentials provider failed")),
    });

    const result = await target.deliver({
      envelope: anEnvelope({ target: aLambdaTarget() }),
      attempt: 1,
      onSent,
    });

    expect(result).toMatchObject({
      kind: "error",
      category: ErrorCategory.UNKNOWN,
      requestSent: false,
      message: "cannot load the Lambda client: credentials provider failed",
    });
    expect(onSent).not.toHaveBeenCalled();
  });

  it("reports the function's answer even when the onSent callback throws", async () => {
    const server = await fakeLambda((_req, res) => res.writeHead(200).end('{"ok":true}'));
    const throwing = vi.fn(() => {
      throw new Error("bookkeeping failed");
    });

    const result = await invoke(server.port, undefined, {}, throwing);

    expect(result).toMatchObject({ kind: "response", statusCode: 200 });
    expect(throwing).toHaveBeenCalledOnce();
  });

  it("bounds the response excerpt", async () => {
    const server = await fakeLambda((_req, res) =>
      res.writeHead(200).end(JSON.stringify("r".repeat(5000))),
    );
    const result = await invoke(server.port, undefined, { maxBodyExcerptBytes: 10 });
    expect(result).toMatchObject({ kind: "response", bodyExcerpt: `"${"r".repeat(9)}` });
  });

  it("reports a function error as function_error, sent, with the error type and message", async () => {
    const server = await fakeLambda((_req, res) =>
      res
        .writeHead(200, { "X-Amz-Function-Error": "Unhandled" })
        .end(
          JSON.stringify({ errorType: "TypeError", errorMessage: "order is undefined", trace: [] }),
        ),
    );
    const result = await invoke(server.port);
    expect(result).toMatchObject({
      kind: "error",
      category: ErrorCategory.FUNCTION_ERROR,
      requestSent: true,
      message: "function error (Unhandled): TypeError: order is undefined",
      functionAnswer: { kind: "unhandled_error", errorType: "TypeError" },
    });
  });

  describe("reading a function's verdict", () => {
    const answering =
      (body: unknown, functionError?: string): Handler =>
      (_req, res) =>
        res
          .writeHead(
            200,
            functionError === undefined ? {} : { "X-Amz-Function-Error": functionError },
          )
          .end(JSON.stringify(body));

    it.each<[string, Handler, string, unknown]>([
      [
        "a result asking for a retry after 2 s",
        answering({ ricochet: { verdict: "retry", retryAfterSeconds: 2, reason: "busy" } }),
        "function asked for a retry after 2 s: busy",
        { kind: "verdict", verdict: { verdict: "retry", retryAfterSeconds: 2, reason: "busy" } },
      ],
      [
        "a result answering permanent failure",
        answering({ ricochet: { verdict: "permanent", reason: "customer deleted" } }),
        "function answered permanent failure: customer deleted",
        { kind: "verdict", verdict: { verdict: "permanent", reason: "customer deleted" } },
      ],
      [
        "a thrown RicochetRetryError with JSON details",
        answering(
          { errorType: "RicochetRetryError", errorMessage: '{"retryAfterSeconds":30}' },
          "Unhandled",
        ),
        "function asked for a retry after 30 s",
        { kind: "verdict", verdict: { verdict: "retry", retryAfterSeconds: 30 } },
      ],
      [
        "a thrown RicochetPermanentError",
        answering({ errorType: "RicochetPermanentError", errorMessage: "gone" }, "Unhandled"),
        "function answered permanent failure: gone",
        { kind: "verdict", verdict: { verdict: "permanent", reason: "gone" } },
      ],
      [
        "a malformed verdict",
        answering({ ricochet: { verdict: "retry", retryAfterSeconds: "2" } }),
        "malformed ricochet verdict: ricochet.retryAfterSeconds: must be a number of seconds",
        { kind: "malformed_verdict", problem: expect.any(String) },
      ],
    ])("reports %s as a function_error carrying it", async (_, handler, message, answer) => {
      const server = await fakeLambda(handler);
      const result = await invoke(server.port);
      expect(result).toEqual({
        kind: "error",
        category: ErrorCategory.FUNCTION_ERROR,
        requestSent: true,
        message,
        durationMs: expect.any(Number),
        functionAnswer: answer,
      });
    });

    it("blanks a credential a verdict's reason quotes", async () => {
      const server = await fakeLambda(
        answering({ ricochet: { verdict: "permanent", reason: "401 for Basic dXNlcjpodW50ZXIy" } }),
      );
      const result = await invoke(server.port);
      expect(result).toMatchObject({
        message: "function answered permanent failure: 401 for Basic [redacted]",
      });
    });

    it("reports an unhandled error whose payload is not JSON with no error type", async () => {
      const server = await fakeLambda((_req, res) =>
        res.writeHead(200, { "X-Amz-Function-Error": "Unhandled" }).end("Segmentation fault"),
      );
      const result = await invoke(server.port);
      expect(result).toMatchObject({
        message: "function error (Unhandled): Segmentation fault",
        functionAnswer: { kind: "unhandled_error", errorType: undefined },
      });
    });
  });

  it("blanks a credential the function's error quotes", async () => {
    const server = await fakeLambda((_req, res) =>
      res.writeHead(200, { "X-Amz-Function-Error": "Unhandled" }).end(
        JSON.stringify({
          errorType: "Error",
          errorMessage: "upstream said 401 to Authorization: Bearer eyJhbGciOi.e30.c2lnbmF0dXJl",
        }),
      ),
    );
    const result = await invoke(server.port);
    expect(result).toMatchObject({
      kind: "error",
      message:
        "function error (Unhandled): Error: upstream said 401 to Authorization: Bearer [redacted]",
    });
  });

  it("blanks a credential in the response before the excerpt bound cuts it", async () => {
    // Cut first, only 5 characters of the token would be left: too few to tell it is one.
    const server = await fakeLambda((_req, res) =>
      res.writeHead(200).end(JSON.stringify("Basic dXNlcjpodW50ZXIy")),
    );
    const result = await invoke(server.port, undefined, { maxBodyExcerptBytes: 12 });
    expect(result).toMatchObject({ kind: "response", bodyExcerpt: '"Basic [reda' });
  });

  it("blanks a credential Lambda's own error quotes", async () => {
    const server = await fakeLambda((_req, res) =>
      res.writeHead(403, { "Content-Type": "application/json" }).end(
        JSON.stringify({
          __type: "AccessDeniedException",
          message: "no: Basic dXNlcjpodW50ZXIy",
        }),
      ),
    );
    const result = await invoke(server.port);
    expect(result).toMatchObject({
      kind: "error",
      message: "AccessDeniedException: no: Basic [redacted]",
    });
  });

  it.each([
    [429, "TooManyRequestsException", ErrorCategory.THROTTLED, false],
    [502, "EC2ThrottledException", ErrorCategory.THROTTLED, false],
    [404, "ResourceNotFoundException", ErrorCategory.INVALID_TARGET, false],
    [400, "InvalidParameterValueException", ErrorCategory.INVALID_TARGET, false],
    [413, "RequestTooLargeException", ErrorCategory.INVALID_TARGET, false],
    [403, "AccessDeniedException", ErrorCategory.TARGET_REFUSED, false],
    [409, "ResourceConflictException", ErrorCategory.FUNCTION_ERROR, false],
    [502, "ENILimitReachedException", ErrorCategory.FUNCTION_ERROR, false],
    [502, "KMSAccessDeniedException", ErrorCategory.FUNCTION_ERROR, false],
    [500, "ServiceException", ErrorCategory.UNKNOWN, true],
    [503, "SomeFutureServerException", ErrorCategory.UNKNOWN, true],
    [400, "SomeFutureClientException", ErrorCategory.UNKNOWN, false],
  ])("maps HTTP %i %s to %s (sent: %s)", async (status, type, category, requestSent) => {
    const server = await fakeLambda(awsError(status, type));
    const result = await invoke(server.port);
    expect(result).toMatchObject({ kind: "error", category, requestSent });
    expect(result.kind === "error" && result.message).toMatch(new RegExp(`^${type}: `));
  });

  it("reports a closed port as connection_refused, not sent", async () => {
    const result = await invoke(await closedPort());
    expect(result).toMatchObject({
      kind: "error",
      category: ErrorCategory.CONNECTION_REFUSED,
      requestSent: false,
    });
  });

  it("reports a call outliving its timeout as timeout, sent", async () => {
    const server = await startTcpServer((socket) => socket.resume());
    open.push(server);
    const result = await invoke(server.port, undefined, { timeoutMs: 300 });
    expect(result).toMatchObject({
      kind: "error",
      category: ErrorCategory.TIMEOUT,
      requestSent: true,
    });
  });

  it("reports a reset connection as connection_reset, sent", async () => {
    const server = await startTcpServer((socket) =>
      socket.once("data", () => socket.resetAndDestroy()),
    );
    open.push(server);
    const result = await invoke(server.port);
    expect(result).toMatchObject({
      kind: "error",
      category: ErrorCategory.CONNECTION_RESET,
      requestSent: true,
    });
  });
});
