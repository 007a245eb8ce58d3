// The http.Server of both apps: request heads Node cannot parse are answered in the app's envelope.
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { Duplex } from 'node:stream';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { answerClientError, clientErrorAnswer, createHttpServer, setErrorEnvelope } from './server.ts';

const servers: { close(): Promise<void> }[] = [];
const finishSlow: (() => void)[] = [];
afterEach(async () => {
  for (const finish of finishSlow.splice(0)) finish();
  for (const s of servers.splice(0)) await s.close();
});

async function start(envelope?: 'vault' | 'resolver'): Promise<number> {
  const app = express();
  app.get('/', (_req, res) => {
    res.json({ ok: true });
  });
  // Starts an answer and finishes it only when the test says so (an answer under way on the connection).
  app.get('/slow', (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.write('started\n');
    finishSlow.push(() => res.end('done\n'));
  });
  if (envelope === 'vault') setErrorEnvelope(app, (error, message) => ({ error, message }));
  if (envelope === 'resolver') setErrorEnvelope(app, (code, message) => ({ code, message }));
  const server = createHttpServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push({
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  });
  return (server.address() as AddressInfo).port;
}

/** Writes `text` on a fresh connection; resolves with everything read until the server closes it. */
function raw(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(text));
    let got = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk) => (got += chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(got));
  });
}

function parse(answer: string): { statusLine: string; headers: Record<string, string>; body: string } {
  const [head = '', body = ''] = answer.split('\r\n\r\n');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(
    lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
  );
  return { statusLine, headers, body };
}

const bigHeader = `GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`;

describe('createHttpServer', () => {
  it.each([
    {
      envelope: 'vault' as const,
      want: { error: 'headers_too_large', message: expect.stringMatching(/exceed 16384 bytes/) },
    },
    {
      envelope: 'resolver' as const,
      want: { code: 'headers_too_large', message: expect.stringMatching(/exceed 16384 bytes/) },
    },
  ])('a 20 kB header → 431 in the $envelope envelope, then the connection is closed', async ({ envelope, want }) => {
    const port = await start(envelope);
    const { statusLine, headers, body } = parse(await raw(port, bigHeader));
    expect(statusLine).toBe('HTTP/1.1 431 Request Header Fields Too Large');
    expect(headers['content-type']).toBe('application/json; charset=utf-8');
    expect(headers['connection']).toBe('close');
    expect(Number(headers['content-length'])).toBe(Buffer.byteLength(body));
    expect(JSON.parse(body)).toEqual(want);
  });

  it('a 20 kB query string → 431 with the body, as fetch sees it', async () => {
    const port = await start('vault');
    const res = await fetch(`http://127.0.0.1:${port}/?q=${'a'.repeat(20_000)}`);
    expect(res.status).toBe(431);
    expect(await res.json()).toEqual({ error: 'headers_too_large', message: expect.any(String) });
  });

  it('a request that is not HTTP → 400 invalid_request in the envelope', async () => {
    const port = await start('resolver');
    const { statusLine, body } = parse(await raw(port, 'HELLO THERE\r\n\r\n'));
    expect(statusLine).toBe('HTTP/1.1 400 Bad Request');
    expect(JSON.parse(body)).toEqual({ code: 'invalid_request', message: expect.any(String) });
  });

  it('a good request on the same server is served as usual', async () => {
    const port = await start('vault');
    expect(await (await fetch(`http://127.0.0.1:${port}/`)).json()).toEqual({ ok: true });
  });

  it('a bad request while an answer is under way on the connection only closes it, as Node does', async () => {
    const port = await start('vault');
    const got = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1', () => socket.write('GET /slow HTTP/1.1\r\nHost: x\r\n\r\n'));
      let text = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk) => {
        text += chunk;
        if (text.includes('started')) socket.write('HELLO THERE\r\n\r\n');
      });
      socket.on('error', reject);
      socket.on('close', () => resolve(text));
    });
    expect(got).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(got).not.toContain('400 Bad Request');
    expect(got).not.toContain('invalid_request');
  });

  it('a bad request once the answer before it has finished is answered in the envelope', async () => {
    const port = await start('vault');
    const got = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1', () => socket.write('GET /slow HTTP/1.1\r\nHost: x\r\n\r\n'));
      let text = '';
      let sent = false;
      socket.setEncoding('utf8');
      socket.on('data', (chunk) => {
        text += chunk;
        if (text.includes('started')) finishSlow.shift()?.();
        if (text.includes('0\r\n\r\n') && !sent) {
          sent = true;
          socket.write('HELLO THERE\r\n\r\n');
        }
      });
      socket.on('error', reject);
      socket.on('close', () => resolve(text));
    });
    expect(got).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(got).toContain('done\n');
    expect(got).toMatch(/HTTP\/1\.1 400 Bad Request\r\n[\s\S]*"error":"invalid_request"/);
  });

  it("a handler without an envelope keeps Node's own answer", async () => {
    const port = await start();
    expect(await raw(port, bigHeader)).toBe(
      'HTTP/1.1 431 Request Header Fields Too Large\r\nConnection: close\r\n\r\n',
    );
  });
});

describe('answerClientError', () => {
  const envelope = (error: string, message: string) => ({ error, message });
  const socket = (writable: boolean) => {
    const written: string[] = [];
    let destroyed = false;
    const s = new Duplex({
      read() {},
      write(chunk, _enc, cb) {
        written.push(String(chunk));
        cb();
      },
    });
    if (!writable) s.end();
    const destroy = s.destroy.bind(s);
    s.destroy = (e?: Error) => {
      destroyed = true;
      return destroy(e);
    };
    return { s, written, destroyed: () => destroyed };
  };
  const err = (code: string) => Object.assign(new Error(code), { code });

  it('only destroys a socket that is no longer writable', () => {
    const { s, written, destroyed } = socket(false);
    answerClientError(envelope, err('HPE_HEADER_OVERFLOW'), s);
    expect(written).toEqual([]);
    expect(destroyed()).toBe(true);
  });

  it('only destroys the socket when the client reset it', () => {
    const { s, written, destroyed } = socket(true);
    answerClientError(envelope, err('ECONNRESET'), s);
    expect(written).toEqual([]);
    expect(destroyed()).toBe(true);
  });

  it.each([
    ['HPE_HEADER_OVERFLOW', 431, 'headers_too_large'],
    ['HPE_INVALID_METHOD', 400, 'invalid_request'],
    ['HPE_CHUNK_EXTENSIONS_OVERFLOW', 413, 'payload_too_large'],
    ['ERR_HTTP_REQUEST_TIMEOUT', 408, undefined],
  ])('%s → %i %s', (code, status, answerCode) => {
    const answer = clientErrorAnswer(err(code));
    expect([answer?.status, answer?.code]).toEqual([status, answerCode]);
  });
});
