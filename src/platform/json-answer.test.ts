// The pre-serialized JSON answer against Express's own res.json: the same status, headers (in order) and bytes,
// for GET, HEAD, POST, a conditional GET, a type a handler set, and a bodiless status.
import http from 'node:http';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendJsonText, sendTypedText } from './json-answer.ts';
import { serve, type Served } from '../../test-support/observability.ts';

const BODY = { rpcUrl: 'https://rpc.example.test/soroban', protocolVersion: 23, name: 'Zoë ✓', list: [1, 'two'] };

interface Raw {
  status: number;
  rawHeaders: string[];
  body: string;
}

function raw(port: number, method: string, path: string, headers: Record<string, string> = {}): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, headers, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          // Date moves between the two answers; everything else must be equal.
          rawHeaders: res.rawHeaders.filter((_, i, all) => all[i - (i % 2)]!.toLowerCase() !== 'date'),
          body,
        }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

describe('sendJsonText', () => {
  let served: Served;
  beforeAll(async () => {
    const app = express();
    app.set('etag', false);
    for (const [path, send] of [
      ['/json', (_req: express.Request, res: express.Response) => void res.json(BODY)],
      ['/text', (req: express.Request, res: express.Response) => sendJsonText(req, res, BODY, JSON.stringify(BODY))],
      ['/send', (_req: express.Request, res: express.Response) => void res.send(JSON.stringify(BODY))],
      ['/typed', (req: express.Request, res: express.Response) => sendTypedText(req, res, JSON.stringify(BODY))],
    ] as const) {
      app.all(path, (req, res) => {
        res.setHeader('X-Request-ID', 'r1');
        if (req.query['status']) res.status(Number(req.query['status']));
        if (req.query['type']) res.type(String(req.query['type']));
        if (req.query['header']) res.setHeader('Content-Type', String(req.query['header']));
        send(req, res);
      });
    }
    served = await serve(app);
  });
  afterAll(async () => served.close());

  it.each<{ method: string; query: string; headers?: Record<string, string> }>([
    { method: 'GET', query: '' },
    { method: 'HEAD', query: '' },
    { method: 'POST', query: '' },
    { method: 'GET', query: '?status=201' },
    { method: 'GET', query: '?status=204' },
    { method: 'GET', query: '?type=application/problem%2Bjson' },
    { method: 'GET', query: '', headers: { 'if-none-match': '*' } },
    { method: 'GET', query: '', headers: { 'if-modified-since': 'Wed, 21 Oct 2015 07:28:00 GMT' } },
  ])('$method $query $headers answers as res.json does', async ({ method, query, headers }) => {
    const viaJson = await raw(served.port, method, `/json${query}`, headers);
    const viaText = await raw(served.port, method, `/text${query}`, headers);
    expect(viaText).toEqual(viaJson);
  });

  it.each<{ method: string; query: string; headers?: Record<string, string> }>([
    { method: 'GET', query: '?header=application/did%2Bjson;%20charset=utf-8' },
    { method: 'HEAD', query: '?header=application/did%2Bjson;%20charset=utf-8' },
    { method: 'GET', query: '?header=application/did%2Bjson;%20charset=utf-8&status=410' },
    { method: 'GET', query: '?header=application/did%2Bjson;%20charset=utf-8&status=204' },
    {
      method: 'GET',
      query: '?header=application/ld%2Bjson;profile=%22https://w3id.org/did-resolution%22;%20charset=utf-8',
    },
    { method: 'GET', query: '?header=Application/DID%2BJSON;%20charset=UTF-8' },
    { method: 'GET', query: '?header=application/did%2Bjson;%20charset=utf-8', headers: { 'if-none-match': '*' } },
  ])('typed text: $method $query $headers answers as res.send does', async ({ method, query, headers }) => {
    const viaSend = await raw(served.port, method, `/send${query}`, headers);
    const viaTyped = await raw(served.port, method, `/typed${query}`, headers);
    expect(viaTyped).toEqual(viaSend);
  });

  it('answers the text it is given, with its byte length', async () => {
    const answer = await raw(served.port, 'GET', '/text');
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual(BODY);
    const at = (name: string) => answer.rawHeaders[answer.rawHeaders.findIndex((h) => h.toLowerCase() === name) + 1];
    expect(at('content-type')).toBe('application/json; charset=utf-8');
    expect(at('content-length')).toBe(String(Buffer.byteLength(JSON.stringify(BODY))));
  });
});
