import { describe, expect, it } from "vitest";
import { targetKeying } from "../../lib/core/target-groups.js";
import { aLambdaTarget, anHttpTarget } from "../support/factories.js";

const groups = {
  acme: ["http:https://hooks.acme.example:443", "lambda:acme-ingest"],
  globex: ["http:https://globex.example:443"],
};
const keyOf = targetKeying(groups);

describe("targetKeying", () => {
  it.each([
    [
      "puts a declared member in its group though its envelope names none",
      anHttpTarget({ url: "https://hooks.acme.example/orders" }),
      { key: "group:acme", group: "acme" },
    ],
    [
      "honours an envelope's group that is its target's declared group",
      aLambdaTarget({ functionName: "acme-ingest:live", group: "acme" }),
      { key: "group:acme", group: "acme" },
    ],
    [
      "keeps a member in its declared group when the envelope names another tenant's",
      anHttpTarget({ url: "https://hooks.acme.example/x", group: "globex" }),
      { key: "group:acme", group: "acme", ignoredGroup: "globex" },
    ],
    [
      "never lets a stranger's target into a declared group (it could open that group's breaker)",
      anHttpTarget({ url: "https://down.attacker.example/x", group: "acme" }),
      { key: "http:https://down.attacker.example:443", ignoredGroup: "acme" },
    ],
    [
      "gives an undeclared group no key of its own (a fresh group per event would escape limits)",
      anHttpTarget({ url: "https://globex.example/x", group: "fresh-4711" }),
      { key: "group:globex", group: "globex", ignoredGroup: "fresh-4711" },
    ],
    [
      "keys an ungrouped target by its origin",
      anHttpTarget({ url: "https://other.example:8443/x" }),
      { key: "http:https://other.example:8443" },
    ],
  ])("%s", (_name, target, resolution) => {
    expect(keyOf(target)).toEqual(resolution);
  });

  it.each([
    ["a trailing dot", "https://hooks.acme.example./orders"],
    ["an upper-case host and its default port", "https://HOOKS.Acme.example:443/orders"],
  ])("keeps a declared member in its group when its URL is spelled with %s", (_name, url) => {
    expect(keyOf(anHttpTarget({ url }))).toEqual({ key: "group:acme", group: "acme" });
  });

  it("puts every spelling of a loopback member in its group", () => {
    const local = targetKeying({ dev: ["http:http://127.0.0.1:8080"] });
    for (const host of ["localhost", "[::ffff:127.0.0.1]", "[::1]", "127.0.0.1."])
      expect(local(anHttpTarget({ url: `http://${host}:8080/x` })).key).toBe("group:dev");
  });

  it("ignores every envelope group when the deployment declares none", () => {
    expect(targetKeying(undefined)(aLambdaTarget({ functionName: "f", group: "g" }))).toEqual({
      key: "lambda:f",
      ignoredGroup: "g",
    });
  });
});
