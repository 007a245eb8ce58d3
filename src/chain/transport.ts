// The HTTP client under the SDK's rpc.Server: JSON-RPC POSTs over node:http / node:https with the default
// (keep-alive) agents. The SDK's own client (axios) costs about 0.3 ms more CPU per call, and a prepare
// makes three calls, a submit two or more. rpc.Server only ever calls `post(url, body)` and reads `data`.
//
// What axios does and this does not: follow redirects (a redirect is an error here, naming where to), and
// route through HTTP(S)_PROXY — when a proxy is configured in the environment, src/config picks the SDK's
// client instead (Config.rpcTransport).
import http from 'node:http';
import https from 'node:https';
import zlib from 'node:zlib';

export interface JsonPostResponse {
  status: number;
  data: unknown;
}

export interface JsonPostClient {
  post(url: string, data: unknown): Promise<JsonPostResponse>;
}

/** An HTTP failure with the words axios would use, so that error texts stay the same. */
export class TransportError extends Error {
  override readonly name = 'TransportError';
  readonly status?: number;
  readonly code?: string;
  constructor(message: string, status?: number, code?: string) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** A JSON POST client with a whole-request timeout (as axios' `timeout`). */
export function createJsonPostClient(options: { timeoutMs: number }): JsonPostClient {
  const urls = new Map<string, URL>();
  const parse = (url: string): URL => {
    let u = urls.get(url);
    if (!u) {
      u = new URL(url);
      if (urls.size < 100) urls.set(url, u);
    }
    return u;
  };
  return {
    post(url, data) {
      let u: URL;
      try {
        u = parse(url);
      } catch (e) {
        return Promise.reject(e);
      }
      const body = Buffer.from(JSON.stringify(data));
      const lib = u.protocol === 'https:' ? https : http;
      return new Promise<JsonPostResponse>((resolve, reject) => {
        let settled = false;
        const finish = (err: Error | undefined, value?: JsonPostResponse) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          if (err) reject(err);
          else resolve(value!);
        };
        const req = lib.request(
          {
            protocol: u.protocol,
            hostname: u.hostname.startsWith('[') ? u.hostname.slice(1, -1) : u.hostname,
            port: u.port || undefined,
            path: `${u.pathname}${u.search}`,
            method: 'POST',
            ...(u.username ? { auth: `${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}` } : {}),
            headers: { 'content-type': 'application/json', accept: 'application/json', 'content-length': body.length },
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('error', (e) => finish(e));
            res.on('aborted', () => finish(new TransportError('aborted', res.statusCode, 'ECONNABORTED')));
            res.on('end', () => {
              const status = res.statusCode ?? 0;
              if (status >= 300 && status < 400) {
                return finish(
                  new TransportError(
                    `the RPC answered a redirect (${status}) to ${res.headers.location ?? '?'}: configure that URL`,
                    status,
                  ),
                );
              }
              if (status < 200 || status >= 300)
                return finish(new TransportError(`Request failed with status code ${status}`, status));
              let raw: Buffer;
              try {
                raw = decode(Buffer.concat(chunks), res.headers['content-encoding']);
              } catch (e) {
                return finish(e as Error);
              }
              let parsed: unknown;
              try {
                parsed = raw.length === 0 ? '' : JSON.parse(raw.toString('utf8'));
              } catch {
                return finish(new TransportError(`the RPC answered ${status} with a body that is not JSON`, status));
              }
              finish(undefined, { status, data: parsed });
            });
          },
        );
        const timer = setTimeout(() => {
          const e = new TransportError(`timeout of ${options.timeoutMs}ms exceeded`, undefined, 'ECONNABORTED');
          finish(e);
          req.destroy(e);
        }, options.timeoutMs);
        req.on('error', (e) => finish(e));
        req.end(body);
      });
    },
  };
}

function decode(body: Buffer, encoding: string | undefined): Buffer {
  switch ((encoding ?? '').trim().toLowerCase()) {
    case '':
    case 'identity':
      return body;
    case 'gzip':
    case 'x-gzip':
      return zlib.gunzipSync(body);
    case 'deflate':
      return zlib.inflateSync(body);
    case 'br':
      return zlib.brotliDecompressSync(body);
    default:
      throw new TransportError(`the RPC answered with an unsupported content-encoding ${encoding}`);
  }
}
