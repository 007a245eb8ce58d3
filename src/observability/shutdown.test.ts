import http from 'node:http';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { gracefulShutdown } from './shutdown.ts';
import { request, serve, type Served } from '../../test-support/observability.ts';

/** An app whose /slow answers once the test calls `release`, and which tells when a request has arrived. */
function slowApp() {
  let arrived: () => void = () => undefined;
  const firstArrival = new Promise<void>((r) => (arrived = r));
  let release: () => void = () => undefined;
  const released = new Promise<void>((r) => (release = r));
  const app = express();
  app.get('/slow', (_req, res) => {
    arrived();
    void released.then(() => res.json({ done: true }));
  });
  app.get('/fast', (_req, res) => void res.json({ fast: true }));
  app.get('/never', () => arrived());
  return { app, firstArrival, release };
}

const refused = (port: number) =>
  request(port, { path: '/fast' }).then(
    () => 'answered',
    (err: NodeJS.ErrnoException) => err.code,
  );

describe('gracefulShutdown', () => {
  let served: Served | undefined;
  const agents: http.Agent[] = [];
  afterEach(async () => {
    for (const a of agents.splice(0)) a.destroy();
    await served?.close();
    served = undefined;
  });
  const keepAlive = () => {
    const a = new http.Agent({ keepAlive: true });
    agents.push(a);
    return a;
  };

  it('lets a request under way finish with 200, refuses new connections, and closes its keep-alive socket', async () => {
    const { app, firstArrival, release } = slowApp();
    served = await serve(app);
    const { server, port } = served;
    const agent = keepAlive();
    const slow = request(port, { path: '/slow', agent });
    await firstArrival;

    const started = Date.now();
    const closing = gracefulShutdown(server, { timeoutMs: 5000 });
    expect(server.listening).toBe(false);
    expect(await refused(port)).toBe('ECONNREFUSED');

    release();
    const answer = await slow;
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({ done: true });
    // Not held open for the 5 s keep-alive timeout, nor forced.
    expect(await closing).toMatchObject({ forced: false });
    expect(Date.now() - started).toBeLessThan(1500);
    expect(await refused(port)).toBe('ECONNREFUSED');
  });

  it('closes idle keep-alive sockets at once', async () => {
    const { app } = slowApp();
    served = await serve(app);
    const agent = keepAlive();
    expect((await request(served.port, { path: '/fast', agent })).status).toBe(200);
    const started = Date.now();
    expect(await gracefulShutdown(served.server, { timeoutMs: 5000 })).toMatchObject({ forced: false });
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('destroys what is still open at the deadline', async () => {
    const { app, firstArrival } = slowApp();
    served = await serve(app);
    const hanging = request(served.port, { path: '/never' }).then(
      () => 'answered',
      (err: NodeJS.ErrnoException) => err.code,
    );
    await firstArrival;
    const result = await gracefulShutdown(served.server, { timeoutMs: 100 });
    expect(result.forced).toBe(true);
    expect(result.ms).toBeGreaterThanOrEqual(95);
    expect(await hanging).toBe('ECONNRESET');
  });

  it('resolves at once for a server that is not listening', async () => {
    const server = http.createServer();
    expect(await gracefulShutdown(server, { timeoutMs: 1000 })).toMatchObject({ forced: false });
  });
});
