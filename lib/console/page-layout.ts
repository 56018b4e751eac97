import { html, raw } from "hono/html";
import { CONSOLE_SCRIPT_PATH, NO_TOKEN_ID, SHELL_ID } from "./console-script.js";

/** A piece of HTML built with Hono's `html` template, which escapes every value put into it. */
export type Html = ReturnType<typeof html>;

/** Where the server serves htmx from (never a CDN: the page needs nothing beyond 127.0.0.1). */
export const HTMX_PATH = "/assets/htmx.min.js";

/** The name of the hidden field every form that changes something carries the form token in. */
export const FORM_TOKEN_FIELD = "form-token";

// Minimal, inline: no stylesheet request, no build step.
const STYLE = `
body{font:14px/1.4 system-ui,sans-serif;margin:0;color:#222}
header{background:#223;color:#fff;padding:.5rem 1rem;display:flex;gap:1.5rem;align-items:center}
header a{color:#cde;text-decoration:none}header strong{color:#fff}
main{padding:1rem}
table{border-collapse:collapse;margin:.5rem 0}
th,td{border-bottom:1px solid #ddd;padding:.25rem .6rem;text-align:left;vertical-align:top}
th{background:#f4f4f8}
.tabs a{margin-right:.8rem}.tabs a.on{font-weight:bold;text-decoration:none;color:#000}
.count{color:#666}
.timeline{list-style:none;padding-left:1rem;border-left:3px solid #ccd}
.timeline li{margin:.6rem 0;padding:.4rem .6rem;background:#f8f8fb;border-radius:4px}
.timeline li.audit{background:#fff6e0}
.timeline li.running{background:#e8f4ff}
.gap{color:#666;font-size:.9em;margin:.2rem 0 .2rem .6rem}
.outcome-success{color:#176317}.outcome-retryable,.outcome-uncertain{color:#8a5a00}
.outcome-permanent{color:#a11}
.within{color:#176317}.above,.below{color:#8a5a00}
.refused{color:#a11}
form.inline{display:inline}
fieldset{border:1px solid #ccd;margin:.5rem 0}
svg.chart{display:block;margin:.2rem 0 .6rem}
svg.chart{overflow:visible}svg.chart .axis{stroke:#999}svg.chart .scale{font-size:10px;fill:#666}
svg.chart .caption{font-size:11px;fill:#444}
.bar-delivered{fill:#3a8a3a;background:#3a8a3a}.bar-retried{fill:#d99a1e;background:#d99a1e}
.bar-failed{fill:#c0392b;background:#c0392b}.bar-deferred{fill:#7f8fa6;background:#7f8fa6}
.key{color:#fff;padding:0 .3rem;border-radius:3px;font-size:.9em}
svg.chart polyline{fill:none;stroke-width:1.5}
.latency-p50{stroke:#2e6db4;fill:#2e6db4;background:#2e6db4}
.latency-p90{stroke:#8e44ad;fill:#8e44ad;background:#8e44ad}
.latency-p99{stroke:#c0392b;fill:#c0392b;background:#c0392b}
.span-attempt{fill:#9bb7d4}.span-call{fill:#2e6db4}.span-running{fill:#5dade2}
.span-wait{fill:#e5d3a1}.span-hop{fill:#d99a1e}.span-deferral{fill:#7f8fa6}.span-action{fill:#e67e22}
section.activity{margin:0 0 1rem}section.activity h3{margin:.6rem 0 .2rem;font-size:1em}
`;

/** A whole page: header with the console's sections, then `body`. */
export const pageLayout = (title: string, body: Html): Html => html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${title} · Ricochet console</title>
<meta name="referrer" content="same-origin">
<style>${raw(STYLE)}</style>
<script src="${HTMX_PATH}" defer></script>
<script src="${CONSOLE_SCRIPT_PATH}" defer></script>
</head>
<body>
<header>
<strong>Ricochet</strong>
<a href="/events">Events</a>
<a href="/dead-letters">Dead letters</a>
<a href="/targets">Targets</a>
</header>
<main>
<h1>${title}</h1>
${body}
</main>
</body>
</html>`;

/**
 * The page a navigation gets (a link, a reload, back, the printed address): no data and no
 * secret, as it is served without the token; the console's script loads the real page in its
 * place with the token from the tab, or says the tab has none.
 */
export const shellPage = (port: number): Html =>
  pageLayout(
    "Loading",
    html`<p id="${SHELL_ID}">Loading…</p>
<p class="refused" id="${NO_TOKEN_ID}" hidden>This tab holds no console token: open the console at the address it printed (<code>http://127.0.0.1:${port}/#token=…</code>), in this tab.</p>
<noscript><p class="refused">The console needs JavaScript: its token is kept in the tab and sent by its script.</p></noscript>`,
  );

/**
 * A form that changes something: htmx posts it (adding the token header), with the form token;
 * the answer replaces the page, and the address bar shows where the post ended.
 */
export const changeForm = (
  action: string,
  id: string,
  formToken: string,
  fields: Html | readonly Html[],
): Html => html`<form method="post" action="${action}" id="${id}" hx-post="${action}" hx-target="body" hx-replace-url="true">
<input type="hidden" name="${FORM_TOKEN_FIELD}" value="${formToken}">
${fields}</form>`;

/** A refusal or an error, as a page. */
export const messagePage = (title: string, message: string): Html =>
  pageLayout(title, html`<p class="refused">${message}</p>`);

/** An optional value, shown as nothing when absent. */
export const shown = (value: string | number | undefined): string =>
  value === undefined ? "" : String(value);
