/**
 * Child-process entry that serves fauxqs on a loopback port. It runs apart from the caller so the
 * emulator has its own event loop: in-process, a test's synchronous child-process call would
 * freeze the queue it is waiting on.
 *
 * Reads FAUXQS_PORT (0 = any free port) and FAUXQS_DEFAULT_REGION, prints one JSON line
 * `{"address":"http://127.0.0.1:<port>"}` once listening, and exits when its stdin closes (its
 * parent died) or on SIGTERM.
 *
 * SIGINT is ignored: Ctrl-C at a terminal signals the whole foreground job, this child included,
 * and a fauxqs gone at once left `npm start`'s pollers failing to receive (ECONNREFUSED) until
 * they stopped. The parent stops its pollers first, then sends SIGTERM.
 */
import { buildApp } from "fauxqs";

const app = buildApp({
  logger: false,
  defaultRegion: process.env.FAUXQS_DEFAULT_REGION ?? "us-east-1",
});

let closing = false;
const shutdown = (): void => {
  if (closing) return;
  closing = true;
  app.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.on("SIGTERM", shutdown);
process.on("SIGINT", () => undefined);
process.stdin.on("end", shutdown);
process.stdin.on("close", shutdown);
process.stdin.resume();

const address = await app.listen({ port: Number(process.env.FAUXQS_PORT ?? 0), host: "127.0.0.1" });
process.stdout.write(`${JSON.stringify({ address })}\n`);
