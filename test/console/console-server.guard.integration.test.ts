import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tokenCookieName } from "../../lib/console/console-app.js";
import { type ConsoleWorld, startConsoleWorld } from "./console-world.js";

/*
 * The console's door, over real HTTP: fetch cannot set Host, so a raw node:http request does
 * where the Host is the point.
 */

let world: ConsoleWorld;
let token: string;

beforeAll(async () => {
  world = await startConsoleWorld("console-guard");
  token = new URL(world.console.url).searchParams.get("token") ?? "";
});
afterAll(() => world?.console.close());

const get = (path: string, headers: Record<string, string> = {}) =>
  fetch(`${world.origin}${path}`, { headers, redirect: "manual" });

const cookie = () => ({ cookie: `${tokenCookieName(world.console.port)}=${token}` });

/** A GET with a Host of our choosing. */
const getWithHost = (path: string, host: string, headers: Record<string, string> = {}) =>
  new Promise<number>((resolve, reject) => {
    const req = request(
      { host: "127.0.0.1", port: world.console.port, path, headers: { ...headers, host } },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on("error", reject);
    req.end();
  });

describe("the console's request guard", () => {
  it("listens on 127.0.0.1 with a token of at least 128 bits in the address it prints", () => {
    const url = new URL(world.console.url);
    expect(url.hostname).toBe("127.0.0.1");
    expect(Buffer.from(token, "base64url").length).toBeGreaterThanOrEqual(16);
  });

  it("trades the URL's token for an HttpOnly, SameSite=Strict cookie and drops it from the URL", async () => {
    const response = await get(`/events?status=delivered&token=${token}`);
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe("/events?status=delivered");
    const setCookie = response.headers.get("set-cookie") ?? "";
    expect(setCookie).toContain(`${tokenCookieName(world.console.port)}=${token}`);
    expect(setCookie).toMatch(/HttpOnly/i);
    expect(setCookie).toMatch(/SameSite=Strict/i);
  });

  it("serves a page to a request that carries the token's cookie", async () => {
    const response = await get("/events", cookie());
    expect(response.status).toBe(200);
    expect(await response.text()).toContain("Events");
  });

  it("serves htmx itself, so the page needs nothing beyond 127.0.0.1", async () => {
    const response = await get("/assets/htmx.min.js", cookie());
    expect(response.status).toBe(200);
    expect(await response.text()).toContain("htmx");
  });

  it.each([
    ["no token", {}],
    ["a wrong token's cookie", { cookie: `${tokenCookieName(0)}=x; ricochet_console_1=nope` }],
  ])("refuses a request with %s", async (_, headers) => {
    const response = await get("/events", headers);
    expect(response.status).toBe(401);
    expect(await response.text()).not.toContain(token);
  });

  it("refuses a wrong token in the URL", async () => {
    expect((await get(`/events?token=${token.slice(1)}x`)).status).toBe(401);
  });

  it("refuses a foreign Host (DNS rebinding), token or not", async () => {
    expect(await getWithHost("/events", `evil.example:${world.console.port}`, cookie())).toBe(403);
    expect(await getWithHost("/events", "127.0.0.1:1", cookie())).toBe(403);
    expect(await getWithHost("/events", `localhost:${world.console.port}`, cookie())).toBe(200);
  });

  it("refuses a request from another origin, and one the browser calls cross-site", async () => {
    expect((await get("/events", { ...cookie(), origin: "http://evil.example" })).status).toBe(403);
    expect((await get("/events", { ...cookie(), "sec-fetch-site": "cross-site" })).status).toBe(
      403,
    );
  });

  it("refuses a POST whose form lacks the token, even with the cookie and our origin", async () => {
    const response = await fetch(`${world.origin}/dead-letters/redrive`, {
      method: "POST",
      headers: { ...cookie(), origin: world.origin },
      body: new URLSearchParams({ reason: "exhausted", confirm: "yes" }),
      redirect: "manual",
    });
    expect(response.status).toBe(403);
  });
});
