import type { Socket } from "node:net";
import { Webhook } from "standardwebhooks";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  createHttpTarget,
  type HttpTargetOptions,
} from "../../../lib/adapters/targets/http-target.js";
import type { Envelope, HttpTarget } from "../../../lib/core/envelope.js";
import type { AttemptResult } from "../../../lib/core/outcome.js";
import { ErrorCategory } from "../../../lib/core/policy.js";
import { createHmacSigner } from "../../../lib/core/signing.js";
import { verifyDelivery } from "../../../lib/receiver.js";
import { anEnvelope, anHttpTarget } from "../../support/factories.js";
import {
  closedPort,
  type Handler,
  type LocalReceiver,
  type LocalTcpServer,
  startReceiver,
  startTcpServer,
} from "./local-servers.js";

const LOOPBACK = ["127.0.0.0/8"];
const SECRET = `whsec_${Buffer.alloc(32, 3).toString("base64")}`;
const OTHER_SECRET = `whsec_${Buffer.alloc(32, 4).toString("base64")}`;
const LEGACY_SECRET = "http-target-legacy-key";

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((server) => server.close()));
});

const receiver = async (handler: Handler): Promise<LocalReceiver> => {
  const server = await startReceiver(handler);
  open.push(server);
  return server;
};

const tcpServer = async (onSocket: (socket: Socket) => void): Promise<LocalTcpServer> => {
  const server = await startTcpServer(onSocket);
  open.push(server);
  return server;
};

const envelopeTo = (
  url: string,
  target: Partial<HttpTarget> = {},
  payload: unknown = { orderId: "o-1" },
): Envelope => anEnvelope({ target: anHttpTarget({ url, ...target }), payload });

const deliver = (
  envelope: Envelope,
  options: HttpTargetOptions = { allowedHosts: LOOPBACK },
  onSent?: () => void,
): Promise<AttemptResult> => createHttpTarget(options).deliver({ envelope, attempt: 3, onSent });

/** Calls `then` once the socket has received a whole request (headers and Content-Length body). */
const afterWholeRequest = (socket: Socket, then: () => void): void => {
  let buffered = Buffer.alloc(0);
  const onData = (chunk: Buffer): void => {
    buffered = Buffer.concat([buffered, chunk]);
    const headerEnd = buffered.indexOf("\r\n\r\n");
    if (headerEnd < 0) return;
    const length = Number(
      /content-length: (\d+)/i.exec(buffered.subarray(0, headerEnd).toString())?.[1],
    );
    if (buffered.length >= headerEnd + 4 + length) {
      socket.off("data", onData);
      then();
    }
  };
  socket.on("data", onData);
};

/** A payload too big to fit in the loopback socket buffers, so it cannot be flushed unread. */
const HUGE_PAYLOAD = { blob: "x".repeat(48 * 1024 * 1024) };

describe("createHttpTarget against a local receiver", () => {
  it("sends the payload as JSON with the idempotency, attempt and event-id headers", async () => {
    const server = await receiver((_req, res) => res.writeHead(202).end("accepted"));
    const envelope = envelopeTo(`http://127.0.0.1:${server.port}/hooks/orders?tenant=7`, {
      method: "PUT",
      headers: { "X-Tenant": "seven", "content-type": "application/vnd.orders+json" },
    });
    const onSent = vi.fn();

    const result = await deliver(
      envelope,
      { allowedHosts: LOOPBACK, userAgent: "test-agent" },
      onSent,
    );

    expect(result).toMatchObject({ kind: "response", statusCode: 202, bodyExcerpt: "accepted" });
    expect(onSent).toHaveBeenCalledOnce();
    expect(server.seen).toHaveLength(1);
    const [seen] = server.seen;
    expect(seen).toMatchObject({
      method: "PUT",
      url: "/hooks/orders?tenant=7",
      body: '{"orderId":"o-1"}',
    });
    expect(seen?.headers).toMatchObject({
      "idempotency-key": envelope.eventId,
      "ricochet-event-id": envelope.eventId,
      "ricochet-attempt": "3",
      "x-tenant": "seven",
      "content-type": "application/vnd.orders+json",
      "user-agent": "test-agent",
    });
  });

  it("reports the receiver's answer even when the onSent callback throws", async () => {
    const server = await receiver((_req, res) => res.writeHead(200).end("ok"));
    const throwing = vi.fn(() => {
      throw new Error("bookkeeping failed");
    });

    const result = await deliver(
      envelopeTo(`http://127.0.0.1:${server.port}/`),
      { allowedHosts: LOOPBACK },
      throwing,
    );

    expect(result).toMatchObject({ kind: "response", statusCode: 200 });
    expect(throwing).toHaveBeenCalledOnce();
    expect(server.seen).toHaveLength(1);
  });

  it("reuses one kept-alive connection for consecutive calls to the same host", async () => {
    const server = await receiver((_req, res) => res.writeHead(200).end("ok"));
    const target = createHttpTarget({ allowedHosts: LOOPBACK });
    const envelope = envelopeTo(`http://127.0.0.1:${server.port}/`);

    const results = [];
    for (let call = 0; call < 3; call += 1) {
      results.push(await target.deliver({ envelope, attempt: call + 1 }));
    }

    expect(results.map((r) => (r.kind === "response" ? r.statusCode : r.kind))).toEqual([
      200, 200, 200,
    ]);
    expect(server.seen).toHaveLength(3);
    expect(server.connections()).toBe(1);
  });

  it("reports a reused connection closed without an answer as sent, and reconnects for the next call", async () => {
    // The keep-alive race as the client sees it: the server drops a pooled connection as the next
    // request goes out on it. It may have read the request, so the call is not silently repeated.
    const server = await receiver((_req, res) => {
      if (server.seen.length === 2) res.socket?.destroy();
      else res.writeHead(200).end("ok");
    });
    const target = createHttpTarget({ allowedHosts: LOOPBACK });
    const envelope = envelopeTo(`http://127.0.0.1:${server.port}/`);

    const first = await target.deliver({ envelope, attempt: 1 });
    const dropped = await target.deliver({ envelope, attempt: 2 });
    const next = await target.deliver({ envelope, attempt: 3 });

    expect(first).toMatchObject({ kind: "response", statusCode: 200 });
    expect(dropped).toMatchObject({
      kind: "error",
      category: ErrorCategory.CONNECTION_RESET,
      requestSent: true,
    });
    expect(next).toMatchObject({ kind: "response", statusCode: 200 });
    expect(server.seen.map((r) => r.headers["ricochet-attempt"])).toEqual(["1", "2", "3"]);
    expect(server.connections()).toBe(2);
  });

  it("defaults to POST with Content-Type application/json", async () => {
    const server = await receiver((_req, res) => res.writeHead(200).end());
    await deliver(envelopeTo(`http://127.0.0.1:${server.port}/`));
    expect(server.seen[0]).toMatchObject({
      method: "POST",
      headers: { "content-type": "application/json" },
    });
  });

  it("signs the exact body so the standardwebhooks package and verifyDelivery accept it", async () => {
    const server = await receiver((_req, res) => res.writeHead(204).end());
    const nowMs = Date.now();
    const signer = createHmacSigner(
      async () => `${SECRET} ${LEGACY_SECRET}`,
      () => nowMs,
    );
    const envelope = anEnvelope({
      eventId: `order.${Math.floor(nowMs / 1000)}`,
      target: anHttpTarget({ url: `http://127.0.0.1:${server.port}/` }),
      payload: { note: "Zoë ✓" },
    });
    await createHttpTarget({ allowedHosts: LOOPBACK, signer }).deliver({
      envelope,
      attempt: 1,
      replay: 2,
    });
    const [seen] = server.seen;
    if (seen === undefined) throw new Error("no request seen");
    const headers = seen.headers as Record<string, string>;
    expect(new Webhook(SECRET).verify(seen.body, headers)).toEqual({ note: "Zoë ✓" });
    expect(() => new Webhook(OTHER_SECRET).verify(seen.body, headers)).toThrow();
    const check = (secret: string, acceptLegacySignature = false) =>
      verifyDelivery({
        secret,
        headers: seen.headers,
        body: seen.body,
        nowSeconds: nowMs / 1000,
        acceptLegacySignature,
      });
    expect(check(SECRET)).toMatchObject({ ok: true, eventId: envelope.eventId, replay: 2 });
    // The old header is still sent and verifiable, without the replay it cannot vouch for.
    expect(check(LEGACY_SECRET, true)).toEqual({ ok: false, reason: "unsigned_replay" });
    expect(check(OTHER_SECRET).ok).toBe(false);
  });

  it("fails the attempt, unsent and before contact, when the signer cannot sign", async () => {
    const server = await receiver((_req, res) => res.writeHead(200).end());
    const signer = async (): Promise<Record<string, string>> => {
      throw new Error("secret store unavailable");
    };
    const result = await deliver(envelopeTo(`http://127.0.0.1:${server.port}/`), {
      allowedHosts: LOOPBACK,
      signer,
    });
    expect(result).toMatchObject({
      kind: "error",
      category: ErrorCategory.UNKNOWN,
      requestSent: false,
      beforeContact: true,
    });
    expect(server.connections()).toBe(0);
  });

  it("passes Retry-After through raw", async () => {
    const server = await receiver((_req, res) =>
      res.writeHead(503, { "Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT" }).end(),
    );
    const result = await deliver(envelopeTo(`http://127.0.0.1:${server.port}/`));
    expect(result).toMatchObject({
      kind: "response",
      statusCode: 503,
      retryAfter: "Wed, 21 Oct 2015 07:28:00 GMT",
    });
  });

  it("returns a redirect as a response without following it", async () => {
    const server = await receiver((req, res) =>
      req.url === "/old"
        ? res.writeHead(302, { Location: "/new" }).end()
        : res.writeHead(200).end(),
    );
    const result = await deliver(envelopeTo(`http://127.0.0.1:${server.port}/old`));
    expect(result).toMatchObject({ kind: "response", statusCode: 302 });
    expect(server.seen.map((seen) => seen.url)).toEqual(["/old"]);
  });

  it("keeps only the first bytes of an endless body and hangs up", async () => {
    let serverSawClose = false;
    const server = await receiver((_req, res) => {
      res.writeHead(500);
      const chunk = "e".repeat(16 * 1024);
      const pump = (): void => {
        while (res.write(chunk)) {
          /* fill the buffer */
        }
      };
      res.on("drain", pump);
      res.on("close", () => {
        serverSawClose = true;
      });
      pump();
    });
    const result = await deliver(envelopeTo(`http://127.0.0.1:${server.port}/`), {
      allowedHosts: LOOPBACK,
      maxBodyExcerptBytes: 100,
    });
    expect(result).toMatchObject({
      kind: "response",
      statusCode: 500,
      bodyExcerpt: "e".repeat(100),
    });
    await vi.waitFor(() => expect(serverSawClose).toBe(true));
  });

  it("does not split a multi-byte character at the excerpt bound", async () => {
    const server = await receiver((_req, res) => res.writeHead(400).end("ab€€€"));
    const result = await deliver(envelopeTo(`http://127.0.0.1:${server.port}/`), {
      allowedHosts: LOOPBACK,
      maxBodyExcerptBytes: 4,
    });
    expect(result).toMatchObject({ kind: "response", statusCode: 400, bodyExcerpt: "ab" });
  });

  it("never lets Authorization, cookie or URL password values into the result", async () => {
    const server = await receiver((req, res) =>
      res.writeHead(401).end(`denied: ${JSON.stringify(req.headers)}`),
    );
    const envelope = envelopeTo(`http://user:url-pass-999@127.0.0.1:${server.port}/`, {
      headers: {
        Authorization: "Bearer tok-abc-123",
        Cookie: "session=cookie-xyz-789",
        "X-Tenant-Key": "tenant-k-456",
      },
    });
    const result = await deliver(envelope, {
      allowedHosts: LOOPBACK,
      secretHeaderNames: ["X-Tenant-Key"],
      maxBodyExcerptBytes: 4096,
    });
    const text = JSON.stringify(result);
    expect(result).toMatchObject({ kind: "response", statusCode: 401 });
    expect(text).toContain("[redacted]");
    for (const secret of ["tok-abc-123", "cookie-xyz-789", "tenant-k-456", "url-pass-999"]) {
      expect(text).not.toContain(secret);
    }
    expect(server.seen[0]?.headers.authorization).toBe("Bearer tok-abc-123");
  });

  it.each([
    ["the Authorization header", (auth: string) => auth],
    ["the bare Basic token", (auth: string) => auth.replace(/^Basic /, "")],
    ["the password", () => "url-pass-999"],
  ])("blanks the URL's userinfo when the receiver echoes %s", async (_, echo) => {
    const server = await receiver((req, res) =>
      res.writeHead(401).end(`denied: ${echo(String(req.headers.authorization))}`),
    );
    const result = await deliver(envelopeTo(`http://user:url-pass-999@127.0.0.1:${server.port}/`));
    const basicToken = Buffer.from("user:url-pass-999").toString("base64");
    expect(server.seen[0]?.headers.authorization).toBe(`Basic ${basicToken}`);
    expect(result).toMatchObject({ kind: "response", statusCode: 401 });
    const excerpt = result.kind === "response" ? result.bodyExcerpt : undefined;
    expect(excerpt).toMatch(/^denied: .*\[redacted\]$/);
    expect(excerpt).not.toContain(basicToken);
    expect(excerpt).not.toContain("url-pass-999");
  });

  it.each([41, 48, 55, 71])(
    "blanks a secret the %i-byte excerpt bound cuts in two, not only the part after it",
    async (maxBodyExcerptBytes) => {
      const token = "tok-0123456789-abcdefghij-KLMNOP";
      const server = await receiver((_req, res) =>
        res.writeHead(401).end(`${" ".repeat(40)}${token}${" ".repeat(40)}`),
      );
      const result = await deliver(
        envelopeTo(`http://127.0.0.1:${server.port}/`, {
          headers: { Authorization: `Bearer ${token}` },
        }),
        { allowedHosts: LOOPBACK, maxBodyExcerptBytes },
      );
      expect(result).toMatchObject({
        kind: "response",
        statusCode: 401,
        bodyExcerpt: `${" ".repeat(40)}[redacted]`,
      });
    },
  );

  it("scrubs secret header values from error messages too", async () => {
    const server = await receiver((_req, res) => res.writeHead(200).end());
    const signer = async (): Promise<Record<string, string>> => {
      throw new Error("cannot sign for Bearer tok-abc-123");
    };
    const result = await deliver(
      envelopeTo(`http://127.0.0.1:${server.port}/`, {
        headers: { Authorization: "Bearer tok-abc-123" },
      }),
      { allowedHosts: LOOPBACK, signer },
    );
    expect(result.kind === "error" && result.message).toBe(
      "signing failed: cannot sign for [redacted]",
    );
  });
});

describe("createHttpTarget failure mapping", () => {
  it("reports a closed port as connection_refused, not sent", async () => {
    const port = await closedPort();
    const onSent = vi.fn();
    const result = await deliver(envelopeTo(`http://127.0.0.1:${port}/`), undefined, onSent);
    expect(result).toMatchObject({
      kind: "error",
      category: ErrorCategory.CONNECTION_REFUSED,
      requestSent: false,
    });
    expect(onSent).not.toHaveBeenCalled();
  });

  it("reports silence after the request as a timeout with the request sent", async () => {
    const server = await tcpServer((socket) => socket.resume());
    const onSent = vi.fn();
    const result = await deliver(
      envelopeTo(`http://127.0.0.1:${server.port}/`, { timeoutMs: 300 }),
      undefined,
      onSent,
    );
    expect(result).toMatchObject({
      kind: "error",
      category: ErrorCategory.TIMEOUT,
      requestSent: true,
    });
    expect(onSent).toHaveBeenCalledOnce();
  });

  it("reports a timeout while the body is still uploading as not sent", async () => {
    // Accepts but never reads: the huge body cannot leave the client before the timeout.
    const server = await tcpServer((socket) => socket.pause());
    const onSent = vi.fn();
    const envelope = envelopeTo(
      `http://127.0.0.1:${server.port}/`,
      { timeoutMs: 500 },
      HUGE_PAYLOAD,
    );
    const result = await deliver(envelope, undefined, onSent);
    expect(result).toMatchObject({
      kind: "error",
      category: ErrorCategory.TIMEOUT,
      requestSent: false,
    });
    expect(result).not.toHaveProperty("beforeContact");
    expect(onSent).not.toHaveBeenCalled();
  });

  it("counts a DNS lookup that never answers against the timeout, not sent and before contact", async () => {
    const result = await deliver(envelopeTo("http://slow-dns.test/", { timeoutMs: 200 }), {
      resolve: () => new Promise(() => undefined),
    });
    expect(result).toMatchObject({
      kind: "error",
      category: ErrorCategory.TIMEOUT,
      requestSent: false,
      beforeContact: true,
    });
  });

  it("reports a reset after the whole request as connection_reset, sent", async () => {
    const server = await tcpServer((socket) =>
      afterWholeRequest(socket, () => socket.resetAndDestroy()),
    );
    const result = await deliver(envelopeTo(`http://127.0.0.1:${server.port}/`));
    expect(result).toMatchObject({
      kind: "error",
      category: ErrorCategory.CONNECTION_RESET,
      requestSent: true,
    });
  });

  it("reports a reset during the upload as connection_reset, not sent", async () => {
    const server = await tcpServer((socket) => socket.once("data", () => socket.resetAndDestroy()));
    const result = await deliver(envelopeTo(`http://127.0.0.1:${server.port}/`, {}, HUGE_PAYLOAD));
    expect(result).toMatchObject({
      kind: "error",
      category: ErrorCategory.CONNECTION_RESET,
      requestSent: false,
    });
  });

  it("reports a connection closed without a response as connection_reset, sent", async () => {
    const server = await tcpServer((socket) => afterWholeRequest(socket, () => socket.end()));
    const result = await deliver(envelopeTo(`http://127.0.0.1:${server.port}/`));
    expect(result).toMatchObject({
      kind: "error",
      category: ErrorCategory.CONNECTION_RESET,
      requestSent: true,
    });
  });

  it.each([
    ["an unsupported scheme", "ftp://127.0.0.1/file"],
    ["an unparsable URL", "http://exa mple.com/"],
    ["a userinfo that is not percent-encoding", "http://user:%zz@127.0.0.1/"],
  ])("reports %s as invalid_target", async (_name, url) => {
    const result = await deliver(envelopeTo(url));
    expect(result).toMatchObject({
      kind: "error",
      category: ErrorCategory.INVALID_TARGET,
      requestSent: false,
    });
  });

  it("reports an unresolvable name as dns_failure", async () => {
    const notFound = Object.assign(new Error("getaddrinfo ENOTFOUND nowhere.test"), {
      code: "ENOTFOUND",
    });
    const result = await deliver(envelopeTo("http://nowhere.test/"), {
      resolve: () => Promise.reject(notFound),
    });
    expect(result).toMatchObject({
      kind: "error",
      category: ErrorCategory.DNS_FAILURE,
      requestSent: false,
      message: "cannot resolve nowhere.test: ENOTFOUND",
    });
  });
});

describe("createHttpTarget address safety", () => {
  it.each([
    "127.0.0.1",
    "10.0.0.5",
    "172.16.0.1",
    "192.168.1.1",
    "169.254.169.254",
    "[::1]",
    "[fe80::1]",
    "[::ffff:127.0.0.1]",
    "[fd00:ec2::254]",
    "224.0.0.1",
    "0.0.0.0",
    "100.64.0.1",
    "255.255.255.255",
    "0x7f.1",
    "2130706433",
  ])("refuses %s without connecting", async (host) => {
    const server = await receiver((_req, res) => res.writeHead(200).end());
    const resolve = vi.fn(async () => ["8.8.8.8"]);
    const result = await deliver(envelopeTo(`http://${host}:${server.port}/`), { resolve });
    expect(result).toMatchObject({
      kind: "error",
      category: ErrorCategory.TARGET_REFUSED,
      requestSent: false,
    });
    expect(resolve).not.toHaveBeenCalled();
    expect(server.connections()).toBe(0);
  });

  it.each([
    ["a private address", ["10.0.0.7"]],
    ["loopback in IPv6", ["::1"]],
    ["one internal address among public ones", ["93.184.216.34", "127.0.0.1"]],
  ])("refuses a name that resolves to %s", async (_name, addresses) => {
    const server = await receiver((_req, res) => res.writeHead(200).end());
    const result = await deliver(envelopeTo(`http://innocent.test:${server.port}/`), {
      resolve: async () => addresses,
    });
    expect(result).toMatchObject({
      kind: "error",
      category: ErrorCategory.TARGET_REFUSED,
      requestSent: false,
    });
    expect(result.kind === "error" && result.message).toMatch(/^refused innocent\.test: /);
    expect(server.connections()).toBe(0);
  });

  it("lets an allowed host name through and connects to the address it resolved", async () => {
    const server = await receiver((_req, res) => res.writeHead(200).end());
    // "internal.test" does not exist in real DNS: the request only arrives if the pin holds.
    const resolve = vi.fn(async () => ["127.0.0.1"]);
    const result = await deliver(envelopeTo(`http://internal.test:${server.port}/`), {
      allowedHosts: ["internal.test"],
      resolve,
    });
    expect(result).toMatchObject({ kind: "response", statusCode: 200 });
    expect(resolve).toHaveBeenCalledOnce();
    expect(server.seen[0]?.headers.host).toBe(`internal.test:${server.port}`);
  });

  it("lets an address inside an allowed CIDR through", async () => {
    const server = await receiver((_req, res) => res.writeHead(200).end());
    const result = await deliver(envelopeTo(`http://127.0.0.1:${server.port}/`), {
      allowedHosts: ["127.0.0.0/30"],
    });
    expect(result).toMatchObject({ kind: "response", statusCode: 200 });
  });

  it("still refuses an internal address outside the allowed CIDR", async () => {
    const server = await receiver((_req, res) => res.writeHead(200).end());
    const result = await deliver(envelopeTo(`http://127.0.0.9:${server.port}/`), {
      allowedHosts: ["127.0.0.0/30"],
    });
    expect(result).toMatchObject({ kind: "error", category: ErrorCategory.TARGET_REFUSED });
  });
});
