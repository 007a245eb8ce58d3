// The node:http JSON client under rpc.Server: what the SDK needs of it, and failures in axios' words.
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJsonPostClient } from './transport.ts';

let server: Server;
let base = '';
const seen: { method?: string; url?: string; type?: string; body: string }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      seen.push({ method: req.method, url: req.url, type: req.headers['content-type'], body });
      switch (req.url) {
        case '/rpc':
          res.setHeader('content-type', 'application/json');
          res.end(JSON.stringify({ jsonrpc: '2.0', id: 1, result: { echo: JSON.parse(body) } }));
          return;
        case '/gzip':
          res.setHeader('content-encoding', 'gzip');
          res.end(gzipSync(JSON.stringify({ result: 'zipped' })));
          return;
        case '/500':
          res.statusCode = 500;
          res.end('{"oops":true}');
          return;
        case '/moved':
          res.statusCode = 307;
          res.setHeader('location', 'https://elsewhere.example/rpc');
          res.end();
          return;
        case '/html':
          res.end('<html>');
          return;
        case '/silent':
          return; // never answers
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  return new Promise<void>((r) => server.close(() => r()));
});

describe('createJsonPostClient', () => {
  const client = createJsonPostClient({ timeoutMs: 300 });

  it('POSTs JSON and answers {status, data}', async () => {
    const r = await client.post(`${base}/rpc`, { jsonrpc: '2.0', id: 1, method: 'getHealth', params: null });
    expect(r).toEqual({
      status: 200,
      data: { jsonrpc: '2.0', id: 1, result: { echo: { jsonrpc: '2.0', id: 1, method: 'getHealth', params: null } } },
    });
    expect(seen.at(-1)).toMatchObject({ method: 'POST', url: '/rpc', type: 'application/json' });
  });

  it('decodes a compressed answer', async () => {
    expect((await client.post(`${base}/gzip`, {})).data).toEqual({ result: 'zipped' });
  });

  it.each([
    { path: '/500', words: 'Request failed with status code 500' },
    { path: '/moved', words: 'redirect (307) to https://elsewhere.example/rpc' },
    { path: '/html', words: 'not JSON' },
    { path: '/silent', words: 'timeout of 300ms exceeded' },
  ])('$path → an error: $words', async ({ path, words }) => {
    await expect(client.post(`${base}${path}`, {})).rejects.toThrow(words);
  });

  it('connection refused is an error (the chain client makes it chain_unavailable)', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    await expect(client.post(`http://127.0.0.1:${port}/rpc`, {})).rejects.toThrow(/ECONNREFUSED/);
  });

  // Node's agent keeps an answered connection for the next call; a server may close it in the meantime (its own
  // keep-alive timeout), and a call that went out on it just then fails though the server never read it.
  it('sends a call again, once, on a new connection when the idle one it went out on was closed by the server', async () => {
    const sockets: Socket[] = [];
    let calls = 0;
    const rpc = createServer((req, res) => {
      calls++;
      req.resume();
      req.on('end', () => res.setHeader('content-type', 'application/json').end('{"result":"ok"}'));
    });
    rpc.on('connection', (s) => sockets.push(s));
    await new Promise<void>((r) => rpc.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(rpc.address() as AddressInfo).port}/rpc`;
    try {
      expect((await client.post(url, {})).data).toEqual({ result: 'ok' });
      await new Promise((r) => setImmediate(r)); // the connection is back in the agent's pool, idle
      expect(sockets).toHaveLength(1);
      sockets[0]!.destroy(); // the server closes it; the client learns of it only on a later turn
      const again = client.post(url, { n: 2 });
      expect((await again).data).toEqual({ result: 'ok' });
      expect(sockets).toHaveLength(2);
      expect(calls).toBe(2);
    } finally {
      rpc.closeAllConnections();
      await new Promise<void>((r) => rpc.close(() => r()));
    }
  });

  it('does not send again when a new connection is reset', async () => {
    let calls = 0;
    const rpc = createServer((req) => {
      calls++;
      req.socket.destroy();
    });
    await new Promise<void>((r) => rpc.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(rpc.address() as AddressInfo).port}/rpc`;
    try {
      await expect(client.post(url, {})).rejects.toThrow(/socket hang up|ECONNRESET/);
      expect(calls).toBe(1);
    } finally {
      await new Promise<void>((r) => rpc.close(() => r()));
    }
  });
});
