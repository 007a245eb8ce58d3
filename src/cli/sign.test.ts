// `tx sign` reads the latest ledger through the chain module's one RPC construction, so it carries the RPC timeout:
// an RPC that takes the connection and never answers fails the command instead of hanging it.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { latestLedgerOf } from './sign.ts';

let server: Server;
let url: string;

beforeAll(async () => {
  server = createServer(() => {
    // never answers
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/rpc`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('latestLedgerOf', () => {
  it('gives up after the RPC timeout when the RPC never answers', async () => {
    await expect(latestLedgerOf(url, 100)).rejects.toThrow(/timeout of 100 ?ms exceeded/);
  });
});
