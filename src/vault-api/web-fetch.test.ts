// The web fetcher's rules: HTTPS only, no loopback/private/link-local address (by literal or by name), no
// redirect, bounded size, JSON only, cached by URL; a named test host is reached over HTTP.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebFetch, isPublicAddress } from './web-fetch.ts';

let server: Server;
let host: string;
let hits = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    hits++;
    if (req.url === '/redirect') {
      res.writeHead(302, { location: '/doc' });
      return res.end();
    }
    if (req.url === '/big') return res.end(JSON.stringify({ pad: 'x'.repeat(4096) }));
    if (req.url === '/text') return res.end('not json');
    res.end(JSON.stringify({ ok: req.url }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

describe('isPublicAddress', () => {
  it.each([
    ['127.0.0.1', false],
    ['10.1.2.3', false],
    ['172.20.0.1', false],
    ['192.168.1.1', false],
    ['169.254.169.254', false],
    ['100.64.0.1', false],
    ['0.0.0.0', false],
    ['::1', false],
    ['fe80::1', false],
    ['fd00::1', false],
    ['::ffff:127.0.0.1', false],
    ['93.184.215.14', true],
    ['2606:4700::1111', true],
  ])('%s → %s', (address, want) => {
    expect(isPublicAddress(address)).toBe(want);
  });
});

describe('createWebFetch', () => {
  it('refuses plain HTTP, a private address by literal, and a name that resolves to one, without connecting', async () => {
    const fetchJson = createWebFetch();
    const before = hits;
    expect(await fetchJson(`http://${host}/doc`)).toMatchObject({
      ok: false,
      reason: expect.stringContaining('https'),
    });
    expect(await fetchJson(`https://${host}/doc`)).toMatchObject({
      ok: false,
      reason: expect.stringContaining('public'),
    });
    expect(await fetchJson('https://localhost:1/doc')).toMatchObject({
      ok: false,
      reason: expect.stringContaining('public'),
    });
    expect(await fetchJson('https://user:pw@example.org/')).toMatchObject({ ok: false });
    expect(hits).toBe(before);
  });

  it('reads a named test host over HTTP: JSON only, no redirect, bounded size, cached by URL', async () => {
    const fetchJson = createWebFetch({ testHosts: [host], maxBytes: 1024 });
    expect(await fetchJson(`https://${host}/doc`)).toEqual({ ok: true, json: { ok: '/doc' } });
    const before = hits;
    expect(await fetchJson(`https://${host}/doc`)).toEqual({ ok: true, json: { ok: '/doc' } });
    expect(hits).toBe(before);
    expect(await fetchJson(`http://${host}/redirect`)).toMatchObject({ ok: false, reason: 'answered HTTP 302' });
    expect(await fetchJson(`http://${host}/big`)).toMatchObject({ ok: false, reason: 'larger than 1024 bytes' });
    expect(await fetchJson(`http://${host}/text`)).toMatchObject({ ok: false, reason: 'the answer is not JSON' });
  });
});
