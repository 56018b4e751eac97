import { request } from "node:http";
import { FORM_TOKEN_FIELD } from "../../lib/console/page-layout.js";
import { CONSOLE_TOKEN_HEADER } from "../../lib/console/request-guard.js";

/*
 * The console as its own page drives it, from outside a browser: the token from the printed
 * address's fragment in the header, the form token read from the page that holds the form.
 */

/** The token in an address the console printed (`http://127.0.0.1:<port>/#token=…`). */
export const consoleTokenOf = (printed: string): string =>
  new URLSearchParams(new URL(printed).hash.slice(1)).get("token") ?? "";

/** The headers the console's page sends with every request it makes. */
export const consoleHeaders = (printed: string): Record<string, string> => ({
  [CONSOLE_TOKEN_HEADER]: consoleTokenOf(printed),
  origin: new URL(printed).origin,
});

/** The form token in a page of the console (the value of its forms' hidden field). */
export const formTokenOf = (page: string): string =>
  new RegExp(`name="${FORM_TOKEN_FIELD}" value="([^"]+)"`).exec(page)?.[1] ?? "";

/** A GET as the console's page makes it. */
export const consoleGet = (printed: string, path: string): Promise<Response> =>
  fetch(new URL(path, printed), { headers: consoleHeaders(printed) });

/** Posts the redrive form as the dead-letter page would: its form token, then `fields`. */
export const postRedrive = async (
  printed: string,
  fields: Record<string, string>,
): Promise<Response> => {
  const formToken = formTokenOf(await (await consoleGet(printed, "/dead-letters")).text());
  return fetch(new URL("/dead-letters/redrive", printed), {
    method: "POST",
    headers: consoleHeaders(printed),
    body: new URLSearchParams({ [FORM_TOKEN_FIELD]: formToken, ...fields }),
  });
};

/** How a raw request sends its body: none, a few bytes of a huge declared length, or a stream. */
export type RawBody =
  | { readonly kind: "none" }
  /** Declares `bytes` in Content-Length and sends only a few: answered only if nothing waits for it. */
  | { readonly kind: "declared"; readonly bytes: number }
  /** Chunked, 64 KiB at a time, until the answer comes or `bytes` have gone. */
  | { readonly kind: "stream"; readonly bytes: number };

/** What a raw request got back. */
export interface RawAnswer {
  readonly status: number;
  readonly text: string;
  readonly headers: Record<string, string | string[] | undefined>;
  /** Body bytes written before the answer came. */
  readonly sentBeforeAnswer: number;
}

const CHUNK = Buffer.alloc(64 * 1024, "a");

/**
 * A request over node:http to 127.0.0.1:`port`, which (unlike fetch) may set any Host and may
 * leave its body unsent: it resolves once the answer is in, however much of the body is not.
 */
export const rawConsoleRequest = (
  port: number,
  options: {
    readonly method?: string;
    readonly path: string;
    readonly headers: Record<string, string>;
    readonly body?: RawBody;
  },
): Promise<RawAnswer> =>
  new Promise((resolve, reject) => {
    const body = options.body ?? { kind: "none" };
    const headers: Record<string, string> =
      body.kind === "declared"
        ? { ...options.headers, "content-length": String(body.bytes) }
        : { ...options.headers };
    const req = request({
      host: "127.0.0.1",
      port,
      path: options.path,
      method: options.method ?? "GET",
      headers,
    });
    let sent = 0;
    let answered = false;
    req.on("response", (res) => {
      answered = true;
      const sentBeforeAnswer = sent;
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        text += chunk;
      });
      res.on("end", () => {
        req.destroy();
        resolve({ status: res.statusCode ?? 0, text, headers: res.headers, sentBeforeAnswer });
      });
    });
    req.on("error", (error) => {
      if (!answered) reject(error);
    });
    if (body.kind === "none") {
      req.end();
    } else if (body.kind === "declared") {
      req.write("form-token=x&reason=");
      sent = 20;
    } else {
      const pump = (): void => {
        while (!answered && sent < body.bytes) {
          sent += CHUNK.length;
          if (!req.write(CHUNK)) {
            req.once("drain", pump);
            return;
          }
        }
        if (!answered) req.end();
      };
      pump();
    }
  });
