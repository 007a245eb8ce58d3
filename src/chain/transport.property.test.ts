// transport.ts against the maintained path (the SDK's own HTTP client under rpc.Server): for any JSON-RPC request
// and any JSON answer, compressed or not, both send the same bytes and read the same answer.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRpcServer } from './rpc.ts';

let server: Server;
let url = '';
/** What the next request is answered with, and the bodies received. */
let answer: { body: string; gzip: boolean } = { body: '{}', gzip: false };
const received: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push(Buffer.concat(chunks).toString('utf8'));
      res.setHeader('content-type', 'application/json');
      if (answer.gzip) res.setHeader('content-encoding', 'gzip');
      res.end(answer.gzip ? gzipSync(answer.body) : answer.body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/rpc`;
});
afterAll(() => {
  server.closeAllConnections();
  return new Promise<void>((r) => server.close(() => r()));
});

const options = (transport: 'node' | 'sdk') => ({ rpcUrl: url, allowHttp: true, timeoutMs: 5_000, transport });

describe('the node transport = the SDK client, byte for byte', () => {
  it('sends the same request and reads the same answer', async () => {
    const node = createRpcServer(options('node'));
    const sdk = createRpcServer(options('sdk'));
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          jsonrpc: fc.constant('2.0'),
          id: fc.nat(),
          method: fc.constantFrom('getHealth', 'getLatestLedger', 'simulateTransaction', 'getLedgerEntries'),
          params: fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 3 })),
        }),
        fc.jsonValue({ maxDepth: 4 }),
        fc.boolean(),
        async (request, result, gzip) => {
          answer = { body: JSON.stringify({ jsonrpc: '2.0', id: request.id, result }), gzip };
          received.length = 0;
          const viaNode = await node.httpClient.post(url, request);
          const viaSdk = await sdk.httpClient.post(url, request);
          expect(received).toHaveLength(2);
          expect(received[0]).toBe(received[1]);
          expect(viaNode.status).toBe(viaSdk.status);
          expect(viaNode.data).toEqual(viaSdk.data);
        },
      ),
      { numRuns: 50 },
    );
  });
});
