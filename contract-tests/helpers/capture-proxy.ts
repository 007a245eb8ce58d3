// A recording HTTP proxy for tests: listens on a free loopback port, forwards every request unchanged to one
// upstream, and hands each exchange (method, path, both bodies as parsed JSON where they are JSON) to a
// callback. Clients see the upstream's status, headers and bytes; the proxy only asks the upstream for an
// uncompressed answer so that it can read it.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';

export interface Exchange {
  method: string;
  /** Path and query, e.g. `/testnet/rpc`. */
  path: string;
  status: number;
  /** The parsed JSON bodies; undefined when empty or not JSON. */
  request: unknown;
  response: unknown;
}

export interface CaptureProxy {
  /** Base URL of the proxy, e.g. `http://127.0.0.1:41234`. */
  readonly url: string;
  close(): Promise<void>;
}

function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => resolve(Buffer.concat(chunks)));
    stream.on('error', reject);
  });
}

function json(raw: Buffer, encoding: string | undefined): unknown {
  if (raw.length === 0) return undefined;
  let text: Buffer = raw;
  if (encoding === 'gzip') text = zlib.gunzipSync(raw);
  else if (encoding === 'deflate') text = zlib.inflateSync(raw);
  else if (encoding === 'br') text = zlib.brotliDecompressSync(raw);
  try {
    return JSON.parse(text.toString('utf8'));
  } catch {
    return undefined;
  }
}

/** Starts a proxy to `upstream` (a base URL); `record` sees every exchange once its answer has been read. */
export async function startCaptureProxy(upstream: string, record: (x: Exchange) => void): Promise<CaptureProxy> {
  const target = new URL(upstream);
  const server = http.createServer((req, res) => {
    void (async () => {
      const body = await readAll(req);
      const headers = { ...req.headers, host: target.host };
      delete headers['accept-encoding'];
      const upstreamRes = await new Promise<http.IncomingMessage>((resolve, reject) => {
        const out = http.request(
          { hostname: target.hostname, port: target.port, method: req.method, path: req.url, headers },
          resolve,
        );
        out.on('error', reject);
        out.end(body);
      });
      const answer = await readAll(upstreamRes);
      const resHeaders = { ...upstreamRes.headers };
      delete resHeaders.connection;
      delete resHeaders['keep-alive'];
      delete resHeaders['transfer-encoding'];
      resHeaders['content-length'] = String(answer.length);
      res.writeHead(upstreamRes.statusCode ?? 502, resHeaders);
      res.end(answer);
      record({
        method: req.method ?? 'GET',
        path: req.url ?? '/',
        status: upstreamRes.statusCode ?? 0,
        request: json(body, req.headers['content-encoding']),
        response: json(answer, upstreamRes.headers['content-encoding']),
      });
    })().catch((e: unknown) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'proxy_error', message: String(e) }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
