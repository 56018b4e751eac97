import { Agent as HttpAgent } from "node:http";
import { Agent as HttpsAgent } from "node:https";

/**
 * How long an idle pooled connection is kept: below the 5 s idle timeout of Node's and many other
 * servers (load balancers keep 60 s), so the pool seldom offers a socket the server is closing.
 * A server's `Keep-Alive: timeout=` hint shortens it further.
 */
const IDLE_CONNECTION_MS = 4_000;

/** A target's kept-alive connections, one pool per scheme. */
export interface ConnectionPools {
  readonly http: HttpAgent;
  readonly https: HttpsAgent;
}

/**
 * One pool per target. Idle pooled sockets are unreferenced, so they never keep a process alive;
 * a new connection uses the pinned lookup, so it goes where the check looked.
 */
export const createConnectionPools = (): ConnectionPools => ({
  http: new HttpAgent({ keepAlive: true, timeout: IDLE_CONNECTION_MS }),
  https: new HttpsAgent({ keepAlive: true, timeout: IDLE_CONNECTION_MS }),
});
