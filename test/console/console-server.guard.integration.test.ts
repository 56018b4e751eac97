import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_CONSOLE_BODY_BYTES } from "../../lib/console/console-app.js";
import { FORM_TOKEN_FIELD } from "../../lib/console/page-layout.js";
import { CONSOLE_TOKEN_HEADER } from "../../lib/console/request-guard.js";
import {
  consoleGet,
  consoleHeaders,
  consoleTokenOf,
  formTokenOf,
  rawConsoleRequest,
} from "../support/console-client.js";
import { type ConsoleWorld, startConsoleWorld } from "./console-world.js";

/*
 * The console's door, over real HTTP. node:http where the Host or an unsent body is the point
 * (fetch can set neither).
 */

let world: ConsoleWorld;
let token: string;

beforeAll(async () => {
  world = await startConsoleWorld("console-guard");
  token = consoleTokenOf(world.console.url);
});
afterAll(() => world?.console.close());

const get = (path: string, headers: Record<string, string> = {}) =>
  fetch(`${world.origin}${path}`, { headers, redirect: "manual" });

const withToken = () => ({ [CONSOLE_TOKEN_HEADER]: token });

/** A POST of the redrive form with `headers`, as `fields`. */
const postForm = (headers: Record<string, string>, fields: Record<string, string>) =>
  fetch(`${world.origin}/dead-letters/redrive`, {
    method: "POST",
    headers,
    body: new URLSearchParams(fields),
    redirect: "manual",
  });

describe("the console's request guard", () => {
  it("listens on 127.0.0.1, its token of at least 128 bits in the fragment of the address it prints", () => {
    const url = new URL(world.console.url);
    expect(url.hostname).toBe("127.0.0.1");
    expect(url.search).toBe("");
    expect(Buffer.from(token, "base64url").length).toBeGreaterThanOrEqual(16);
  });

  it("answers a navigation without the token with the shell: no data, no secret, no cookie", async () => {
    const response = await get("/dead-letters", { "sec-fetch-site": "same-site" });
    expect(response.status).toBe(200);
    expect(response.headers.get("set-cookie")).toBeNull();
    const shell = await response.text();
    expect(shell).toContain('id="console-shell"');
    expect(shell).toContain("This tab holds no console token");
    expect(shell).not.toContain("redrive-form");
    expect(shell).not.toContain(FORM_TOKEN_FIELD);
    expect(shell).not.toContain(token);
  });

  it("serves the page itself to a request with the token's header, and never sets a cookie", async () => {
    const response = await get("/dead-letters", withToken());
    expect(response.status).toBe(200);
    expect(response.headers.get("set-cookie")).toBeNull();
    const page = await response.text();
    expect(page).toContain('id="redrive-form"');
    // The form token is a second secret: the page never holds the tab's token.
    expect(formTokenOf(page)).not.toBe("");
    expect(formTokenOf(page)).not.toBe(token);
    expect(page).not.toContain(token);
  });

  it.each(["/assets/htmx.min.js", "/assets/console.js"])(
    "serves %s without the token, so the shell can load it from 127.0.0.1",
    async (path) => {
      const response = await get(path);
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toContain("javascript");
    },
  );

  it("refuses a wrong token, saying why", async () => {
    const response = await get("/events", { [CONSOLE_TOKEN_HEADER]: `${token.slice(1)}x` });
    expect(response.status).toBe(401);
    const text = await response.text();
    expect(text).toContain("wrong console token");
    expect(text).not.toContain(token);
  });

  it("refuses a foreign Host (DNS rebinding), token or not", async () => {
    const status = async (host: string) =>
      (
        await rawConsoleRequest(world.console.port, {
          path: "/events",
          headers: { ...withToken(), host },
        })
      ).status;
    expect(await status(`evil.example:${world.console.port}`)).toBe(403);
    expect(await status("127.0.0.1:1")).toBe(403);
    expect(await status(`localhost:${world.console.port}`)).toBe(200);
  });

  it("refuses a request from another origin, and one the browser calls cross-site", async () => {
    expect((await get("/events", { ...withToken(), origin: "http://evil.example" })).status).toBe(
      403,
    );
    expect((await get("/events", { ...withToken(), "sec-fetch-site": "cross-site" })).status).toBe(
      403,
    );
  });

  it("refuses a POST without the token's header, whatever its form holds", async () => {
    const page = await (await consoleGet(world.console.url, "/dead-letters")).text();
    const response = await postForm(
      { origin: world.origin },
      { [FORM_TOKEN_FIELD]: formTokenOf(page), reason: "exhausted", confirm: "yes" },
    );
    expect(response.status).toBe(401);
    expect(await response.text()).toContain("a change needs the console token");
  });

  it.each([
    ["lacks the form token", {}],
    ["carries the tab's token in its place", { [FORM_TOKEN_FIELD]: "TAB" }],
  ])(
    "refuses a POST whose form %s, even with the token's header and our origin",
    async (_, form) => {
      const fields = Object.fromEntries(
        Object.entries(form).map(([k, v]) => [k, v === "TAB" ? token : v]),
      );
      const response = await postForm(consoleHeaders(world.console.url), {
        ...fields,
        reason: "exhausted",
        confirm: "yes",
      });
      expect(response.status).toBe(403);
      expect(await response.text()).toContain("form token");
    },
  );

  it("answers a 256 MiB post with a foreign Host before its body is sent", async () => {
    const answer = await rawConsoleRequest(world.console.port, {
      method: "POST",
      path: "/dead-letters/redrive",
      headers: { host: "evil.example", "content-type": "application/x-www-form-urlencoded" },
      body: { kind: "declared", bytes: 256 * 1024 * 1024 },
    });
    expect(answer.status).toBe(403);
    expect(answer.text).toContain("unexpected Host");
  });

  it("answers a post that declares more than the limit with 413 before its body is sent", async () => {
    const answer = await rawConsoleRequest(world.console.port, {
      method: "POST",
      path: "/dead-letters/redrive",
      headers: { ...consoleHeaders(world.console.url), host: `127.0.0.1:${world.console.port}` },
      body: { kind: "declared", bytes: MAX_CONSOLE_BODY_BYTES + 1 },
    });
    expect(answer.status).toBe(413);
    expect(answer.text).toContain(`over ${MAX_CONSOLE_BODY_BYTES} bytes`);
  });

  it("answers a chunked post that grows past the limit with 413 once it has, not at its end", async () => {
    const bytes = 4 * MAX_CONSOLE_BODY_BYTES;
    const answer = await rawConsoleRequest(world.console.port, {
      method: "POST",
      path: "/dead-letters/redrive",
      headers: { ...consoleHeaders(world.console.url), host: `127.0.0.1:${world.console.port}` },
      body: { kind: "stream", bytes },
    });
    expect(answer.status).toBe(413);
    expect(answer.sentBeforeAnswer).toBeLessThan(bytes);
  });
});
