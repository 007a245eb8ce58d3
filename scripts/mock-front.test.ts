// scripts/mock-front.ts: each rule of the front, on a small spec, with a recording stand-in for Prism.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMockFront } from './mock-front.ts';

const bad = {
  content: {
    'application/json': {
      examples: { first: { value: { error: 'invalid_request' } }, invalid_json: { value: { error: 'invalid_json' } } },
    },
  },
};
const SPEC = {
  openapi: '3.1.0',
  info: { title: 'things', version: '1' },
  components: {},
  paths: {
    '/things/list': { post: { operationId: 'listThings', responses: { '200': {}, '400': bad } } },
    '/things/{id}': {
      get: {
        operationId: 'getThing',
        parameters: [
          { name: 'id', in: 'path', schema: { pattern: '^[0-9]+$' } },
          { name: 'limit', in: 'query', schema: {} },
        ],
        responses: { '200': {}, '400': bad },
      },
    },
    '/write': {
      post: {
        operationId: 'write',
        requestBody: {
          content: {
            'application/json': {
              examples: { prepare: { value: { owner: 'x' } }, submit: { value: { signedXdr: 'AAAA' } } },
            },
          },
        },
        responses: {
          '200': { content: { 'application/json': { examples: { prepare: { value: {} }, submit: { value: {} } } } } },
          '400': bad,
          '415': { content: { 'application/json': { example: { error: 'unsupported_content_encoding' } } } },
        },
      },
    },
  },
};

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

let upstream: http.Server;
let front: http.Server;
let base = '';
let seen: Seen[] = [];

const listen = (server: http.Server) =>
  new Promise<number>((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)),
  );

beforeAll(async () => {
  upstream = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString() });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"from":"prism"}');
    });
  });
  const up = await listen(upstream);
  front = createMockFront(SPEC, `http://127.0.0.1:${up}`);
  base = `http://127.0.0.1:${await listen(front)}`;
});
afterAll(async () => {
  await new Promise((r) => front?.close(r));
  await new Promise((r) => upstream?.close(r));
});

async function call(method: string, path: string, headers: Record<string, string> = {}, body?: string | Buffer) {
  seen = [];
  const init: RequestInit = { method, headers };
  if (body !== undefined) init.body = typeof body === 'string' ? body : new Uint8Array(body);
  const res = await fetch(base + path, init);
  const text = await res.text();
  return { status: res.status, allow: res.headers.get('allow'), text, forwarded: seen[0] };
}

const JSON_TYPE = { 'content-type': 'application/json' };

describe('createMockFront', () => {
  it.each([
    { given: 'a submit body', body: '{"signedXdr":"AAAAAg"}', prefer: 'example=submit' },
    { given: 'a prepare body', body: '{"owner":"G"}', prefer: 'example=prepare' },
    { given: 'another body', body: '{"owner":"G","userSalt":"ab"}', prefer: undefined },
  ])('$given → Prism is asked for $prefer', async ({ body, prefer }) => {
    const r = await call('POST', '/write', JSON_TYPE, body);
    expect(r.forwarded?.headers['prefer']).toBe(prefer);
  });

  it("keeps the client's own Prefer", async () => {
    const r = await call('POST', '/write', { ...JSON_TYPE, prefer: 'code=400' }, '{"signedXdr":"AAAAAg"}');
    expect(r.forwarded?.headers['prefer']).toBe('code=400');
  });

  it.each([
    {
      given: 'an undeclared query parameter',
      method: 'GET',
      path: '/things/7?colour=red',
      want: [400, 'invalid_request'],
    },
    { given: "Prism's own __code parameter", method: 'GET', path: '/things/7?__code=200', want: [200, 'prism'] },
    { given: 'a declared one', method: 'GET', path: '/things/7?limit=3', want: [200, 'prism'] },
    { given: 'a method the static path lacks', method: 'GET', path: '/things/list', want: [405, 'NO_METHOD'] },
    { given: 'a URL that only looks like the template', method: 'POST', path: '/things/abc', want: [404, 'Not Found'] },
    {
      given: 'a template URL whose parameter does not fit (Prism validates it)',
      method: 'GET',
      path: '/things/abc',
      want: [200, 'prism'],
    },
  ])('$given: $method $path → $want', async ({ method, path, want }) => {
    const r = await call(method, path);
    expect([r.status, r.text.includes(want[1] as string) ? want[1] : r.text]).toEqual(want);
  });

  it('answers OPTIONS with 204 and Allow, and HEAD as GET without a body', async () => {
    expect(await call('OPTIONS', '/things/list')).toMatchObject({ status: 204, allow: 'POST, OPTIONS' });
    const head = await call('HEAD', '/things/7');
    expect([head.status, head.text, head.forwarded?.method]).toEqual([200, '', 'GET']);
  });

  it.each([
    {
      given: 'a body that is not JSON by its type',
      headers: { 'content-type': 'text/plain' },
      body: '{}',
      want: [400, 'invalid_request'],
    },
    {
      given: 'an unsupported Content-Encoding',
      headers: { ...JSON_TYPE, 'content-encoding': 'compress' },
      body: '{}',
      want: [415, 'unsupported_content_encoding'],
    },
    {
      given: 'a gzip stream that does not decode',
      headers: { ...JSON_TYPE, 'content-encoding': 'gzip' },
      body: 'nope',
      want: [400, 'invalid_request'],
    },
    {
      given: '65 levels of nesting',
      headers: JSON_TYPE,
      body: `${'['.repeat(65)}${']'.repeat(65)}`,
      want: [400, 'invalid_json'],
    },
    { given: 'a lone surrogate', headers: JSON_TYPE, body: '{"owner":"\\ud800"}', want: [400, 'invalid_json'] },
  ])('$given → $want', async ({ headers, body, want }) => {
    const r = await call('POST', '/write', headers, body);
    expect([r.status, JSON.parse(r.text).error]).toEqual(want);
    expect(r.forwarded).toBeUndefined();
  });

  it('forwards a gzip body decoded, and 64 levels as they are', async () => {
    const gz = await call('POST', '/write', { ...JSON_TYPE, 'content-encoding': 'gzip' }, gzipSync('{"owner":"G"}'));
    expect([gz.forwarded?.body, gz.forwarded?.headers['content-encoding']]).toEqual(['{"owner":"G"}', undefined]);
    const deep = `${'['.repeat(64)}${']'.repeat(64)}`;
    expect((await call('POST', '/write', JSON_TYPE, deep)).forwarded?.body).toBe(deep);
  });

  it('passes a Bearer token on, in the case Prism reads, and drops other schemes', async () => {
    expect((await call('GET', '/things/7', { authorization: 'bearer  k1' })).forwarded?.headers['authorization']).toBe(
      'Bearer k1',
    );
    expect(
      (await call('GET', '/things/7', { authorization: 'Basic dTpw' })).forwarded?.headers['authorization'],
    ).toBeUndefined();
  });
});
