// The life of a start's servers: listening, closing in order, and a log line that does not flood.
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import type express from 'express';
import { createHttpServer } from '../http/server.ts';

/** What closes a start: the HTTP servers first and together, then the rest in the reverse order of creation. */
export interface Closers {
  /** A server's graceful close: each lets its requests finish, which still need the stores and the chain. */
  pushHttp(c: () => Promise<void>): void;
  push(c: () => Promise<void>): void;
  close(): Promise<void>;
}

export function createClosers(): Closers {
  const httpClosers: (() => Promise<void>)[] = [];
  const closers: (() => Promise<void>)[] = [];
  return {
    pushHttp: (c) => void httpClosers.push(c),
    push: (c) => void closers.push(c),
    close: async () => {
      await Promise.all(httpClosers.splice(0).map((c) => c().catch(() => undefined)));
      for (const c of closers.splice(0).reverse()) await c().catch(() => undefined);
    },
  };
}

/**
 * Listen; `onListening` registers the server's graceful close. A request head Node cannot parse (over the
 * header size limit, or not HTTP) is answered in the app's error envelope (src/http/server.ts).
 */
export function listen(
  app: express.Express,
  host: string,
  port: number,
  onListening: (server: http.Server) => void,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const server = createHttpServer(app);
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      onListening(server);
      const addr = server.address() as AddressInfo;
      resolve(`http://${host.includes(':') ? `[${host}]` : host}:${addr.port}`);
    });
  });
}

/** At most one call per `everyMs` (a backend retrying every second would flood the log), with the count skipped. */
export function throttled(fn: (suppressed: number, err: Error) => void, everyMs = 10_000): (err: Error) => void {
  let last = -Infinity;
  let suppressed = 0;
  return (err) => {
    const t = Date.now();
    if (t - last < everyMs) {
      suppressed++;
      return;
    }
    last = t;
    fn(suppressed, err);
    suppressed = 0;
  };
}
