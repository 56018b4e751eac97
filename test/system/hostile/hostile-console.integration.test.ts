import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_CONSOLE_BODY_BYTES } from "../../../lib/console/console-app.js";
import { CONSOLE_TOKEN_HEADER } from "../../../lib/console/request-guard.js";
import { type ConsoleWorld, startConsoleWorld } from "../../console/console-world.js";
import { consoleTokenOf, type RawBody, rawConsoleRequest } from "../../support/console-client.js";

/*
 * The console under attack from what shares the operator's machine: pages in the operator's
 * browser (rebinding, cross-site, another 127.0.0.1 port, which holds every cookie 127.0.0.1
 * has) and local processes. Each is refused with a reason before its body is read, or gets only
 * the shell, which holds nothing; none is ever handed a cookie (issue 31, findings 1 and 2).
 */

let world: ConsoleWorld;
let token: string;

beforeAll(async () => {
  world = await startConsoleWorld("hostile-console");
  token = consoleTokenOf(world.console.url);
});
afterAll(() => world?.console.close());

const MIB = 1024 * 1024;
const FORM = { "content-type": "application/x-www-form-urlencoded" };

/** One hostile request: headers beyond Host (`own` is the console's), its body, its answer. */
interface Attack {
  readonly what: string;
  readonly method: string;
  readonly host?: string;
  readonly headers: (token: string) => Record<string, string>;
  readonly body?: Exclude<RawBody, { readonly kind: "none" }>;
  readonly status: number;
  readonly reason: string;
}

const ATTACKS: readonly Attack[] = [
  {
    what: "a DNS-rebinding page's 256 MiB form post, no token",
    method: "POST",
    host: "evil.example",
    headers: () => FORM,
    body: { kind: "declared", bytes: 256 * MIB },
    status: 403,
    reason: "unexpected Host",
  },
  {
    what: "a cross-site page's 600 MiB form post",
    method: "POST",
    headers: () => ({ ...FORM, "sec-fetch-site": "cross-site", origin: "https://evil.example" }),
    body: { kind: "declared", bytes: 600 * MIB },
    status: 403,
    reason: "cross-site request refused",
  },
  {
    what: "another 127.0.0.1 port's page posting with every cookie 127.0.0.1 holds",
    method: "POST",
    headers: (t) => ({
      ...FORM,
      "sec-fetch-site": "same-site",
      origin: "http://127.0.0.1:1",
      cookie: `ricochet_console_1=${t}`,
    }),
    body: { kind: "declared", bytes: 256 * MIB },
    status: 403,
    reason: "another origin",
  },
  {
    what: "a local process posting 256 MiB with cookies only",
    method: "POST",
    headers: (t) => ({ ...FORM, cookie: `ricochet_console=${t}` }),
    body: { kind: "declared", bytes: 256 * MIB },
    status: 401,
    reason: "a change needs the console token",
  },
  {
    what: "a guessed token",
    method: "GET",
    headers: (t) => ({ [CONSOLE_TOKEN_HEADER]: t.replace(/^./, (c) => (c === "A" ? "B" : "A")) }),
    status: 401,
    reason: "wrong console token",
  },
  {
    what: "a preflight from another port's page",
    method: "OPTIONS",
    headers: () => ({ origin: "http://127.0.0.1:1", "access-control-request-method": "POST" }),
    status: 403,
    reason: "another origin",
  },
  {
    what: "a 600 MiB post with the token, declared",
    method: "POST",
    headers: (t) => ({ ...FORM, [CONSOLE_TOKEN_HEADER]: t }),
    body: { kind: "declared", bytes: 600 * MIB },
    status: 413,
    reason: `over ${MAX_CONSOLE_BODY_BYTES} bytes`,
  },
  {
    what: "an endless chunked post with the token",
    method: "POST",
    headers: (t) => ({ ...FORM, [CONSOLE_TOKEN_HEADER]: t }),
    body: { kind: "stream", bytes: 64 * MIB },
    status: 413,
    reason: `over ${MAX_CONSOLE_BODY_BYTES} bytes`,
  },
  {
    what: "a post with the token but not the form token",
    method: "POST",
    headers: (t) => ({ ...FORM, [CONSOLE_TOKEN_HEADER]: t }),
    status: 403,
    reason: "form token",
  },
];

const send = (attack: Attack) =>
  rawConsoleRequest(world.console.port, {
    method: attack.method,
    path: "/dead-letters/redrive",
    headers: { host: attack.host ?? `127.0.0.1:${world.console.port}`, ...attack.headers(token) },
    body: attack.body,
  });

describe("hostile requests to the console", () => {
  it.each(ATTACKS.map((a) => [a.what, a] as const))(
    "refuses %s with a reason, before reading its body, and hands out no cookie",
    async (_, attack) => {
      const answer = await send(attack);
      expect(answer.status).toBe(attack.status);
      expect(answer.text).toContain(attack.reason);
      expect(answer.text).not.toContain(token);
      expect(answer.headers["set-cookie"]).toBeUndefined();
      if (attack.body !== undefined)
        expect(answer.sentBeforeAnswer).toBeLessThan(attack.body.bytes);
    },
  );

  it("gives a navigation that carries every cookie 127.0.0.1 holds only the shell, which holds nothing", async () => {
    const answer = await rawConsoleRequest(world.console.port, {
      path: "/dead-letters",
      headers: {
        host: `127.0.0.1:${world.console.port}`,
        "sec-fetch-site": "same-site",
        cookie: `ricochet_console_${world.console.port}=${token}`,
      },
    });
    expect(answer.status).toBe(200);
    expect(answer.text).toContain("This tab holds no console token");
    expect(answer.text).not.toContain("redrive-form");
    expect(answer.text).not.toContain(token);
    expect(answer.headers["set-cookie"]).toBeUndefined();
  });
});
