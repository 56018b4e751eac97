import { type Browser, chromium } from "playwright-core";

/** Debian's chromium, or the one RICOCHET_CHROMIUM names. */
const CHROMIUM = process.env.RICOCHET_CHROMIUM ?? "/usr/bin/chromium";

/**
 * Headless Chromium for the console's browser tests. The background-networking flags matter:
 * without them Chromium keeps reaching for Google's hosts, which this machine's closed network
 * refuses (/work/.library/env/machines/node.md).
 */
export const launchHeadlessChromium = (): Promise<Browser> =>
  chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
