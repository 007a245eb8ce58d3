// The node:http JSON client under rpc.Server: what the SDK needs of it, and failures in axios' words.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
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
});
