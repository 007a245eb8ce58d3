// Graceful shutdown of an HTTP server: stop listening at once (new connections are refused), let the
// requests already under way finish, close keep-alive sockets as soon as they fall idle, and after the
// deadline destroy whatever is left.
import type { Server } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Logger } from './logging.ts';
import type { Clock } from '../domain.ts';

export interface ShutdownOptions {
  /** How long in-flight requests get before their sockets are destroyed. */
  timeoutMs: number;
  logger?: Logger;
  /** Monotonic milliseconds (default performance.now). */
  now?: Clock;
  /** How often sockets that fell idle are closed (default 25 ms). */
  idlePollMs?: number;
}

export interface ShutdownResult {
  /** True when the deadline passed and open connections were destroyed. */
  forced: boolean;
  /** How long the shutdown took. */
  ms: number;
}

/**
 * Closes `server` gracefully; resolves when every connection is gone. Never rejects.
 *
 * Node keeps a keep-alive socket open for `keepAliveTimeout` (5 s) after its last answer, and
 * `server.close()` only closes the sockets idle at that moment. So: idle sockets are closed now, and again
 * every `idlePollMs` until none is left, which closes a socket whose request was in flight right after its
 * answer; a request that still arrives on an open socket is served with `Connection: close`.
 */
export function gracefulShutdown(server: Server, options: ShutdownOptions): Promise<ShutdownResult> {
  const now = options.now ?? (() => performance.now());
  const started = now();
  const log = options.logger;
  return new Promise<ShutdownResult>((resolve) => {
    let forced = false;
    let timer: NodeJS.Timeout | undefined;
    let poll: NodeJS.Timeout | undefined;
    const finish = () => {
      if (timer) clearTimeout(timer);
      if (poll) clearInterval(poll);
      server.off('request', closeAfterAnswer);
      const result = { forced, ms: Math.round(now() - started) };
      log?.info('http server closed', result);
      resolve(result);
    };
    if (!server.listening) return finish();

    log?.info('http server shutting down', { timeoutMs: options.timeoutMs });
    server.prependListener('request', closeAfterAnswer);
    server.close(() => finish());
    server.closeIdleConnections();
    poll = setInterval(() => server.closeIdleConnections(), options.idlePollMs ?? 25);
    poll.unref();
    timer = setTimeout(() => {
      forced = true;
      log?.error('shutdown deadline passed: destroying open connections', { timeoutMs: options.timeoutMs });
      server.closeAllConnections();
    }, options.timeoutMs);
    timer.unref();
  });
}

function closeAfterAnswer(
  _req: unknown,
  res: { headersSent: boolean; setHeader(name: string, value: string): unknown },
): void {
  if (!res.headersSent) res.setHeader('Connection', 'close');
}
