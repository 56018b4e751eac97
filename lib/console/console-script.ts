import { CONSOLE_TOKEN_HEADER } from "./request-guard.js";

/*
 * The console's own script, served from 127.0.0.1 like htmx (the page's CSP allows no inline
 * script). It is where the token lives in the browser: the printed address brings it in its
 * fragment (never sent to a server, never in a Referer), the script moves it to the tab's
 * sessionStorage (per origin: no other port's page can read it) and takes it out of the address
 * bar, and every htmx request carries it as a header. A page the server answered with the shell
 * (a navigation: link, reload, back, a typed address) is then loaded for real with that header.
 */

/** Where the server serves this script. */
export const CONSOLE_SCRIPT_PATH = "/assets/console.js";

/** The sessionStorage key the tab keeps the token under. */
const TOKEN_STORAGE_KEY = "ricochet-console-token";

/** The id of the shell's placeholder, which the script replaces with the page itself. */
export const SHELL_ID = "console-shell";

/** The id of the shell's message for a tab that holds no token; the script shows it. */
export const NO_TOKEN_ID = "no-token";

// htmx's settings for the console: no page copies kept in localStorage (they would outlive the
// tab, on disk), a reload on a history miss (a restore request could not carry the token), error
// pages shown (they say why), no inline scripts or eval in swapped content.
const HTMX_CONFIG = {
  historyCacheSize: 0,
  refreshOnHistoryMiss: true,
  allowEval: false,
  allowScriptTags: false,
  selfRequestsOnly: true,
  responseHandling: [
    { code: "204", swap: false },
    { code: "...", swap: true },
  ],
};

/** The script's text. */
export const consoleScript = (): string => `"use strict";
(() => {
  const key = ${JSON.stringify(TOKEN_STORAGE_KEY)};
  const given = /^#token=([A-Za-z0-9_-]+)$/.exec(location.hash);
  if (given !== null) {
    sessionStorage.setItem(key, given[1]);
    history.replaceState(null, "", location.pathname + location.search);
  }
  const token = sessionStorage.getItem(key);
  Object.assign(htmx.config, ${JSON.stringify(HTMX_CONFIG)});
  document.addEventListener("htmx:configRequest", (event) => {
    const url = new URL(event.detail.path, location.href);
    if (token !== null && url.origin === location.origin) {
      event.detail.headers[${JSON.stringify(CONSOLE_TOKEN_HEADER)}] = token;
    }
  });
  document.addEventListener("DOMContentLoaded", () => {
    if (document.getElementById(${JSON.stringify(SHELL_ID)}) === null) return;
    if (token === null) {
      document.getElementById(${JSON.stringify(NO_TOKEN_ID)}).hidden = false;
      return;
    }
    htmx.ajax("GET", location.pathname + location.search, {
      target: "body",
      swap: "innerHTML",
      replace: "true",
    });
  });
})();
`;
