// A workaround (docs/operations.md CV_RPC_TRANSPORT, on by default; docs/benchmarks.md "Prepare and the issue cycle:
// profile and changes" shows what it buys): the HTTP client under the SDK's rpc.Server, JSON-RPC POSTs over
// node:http / node:https with the default (keep-alive) agents.
//
// The upstream defect, @stellar/stellar-sdk 17.2.0: rpc.Server posts every call through the SDK's fetch-based
// client (lib/esm/http-client/fetch-client.js, on feaxios 0.0.23, an axios-shaped wrapper of the global fetch,
// undici). Per call it merges its defaults into fresh `Headers` objects, makes an AbortController (and, with a
// timeout, an AbortSignal.timeout timer), runs feaxios' own request pipeline, then fetch builds a Request and a
// Response whose body is read through a web ReadableStream and decoded with a new TextDecoder before JSON.parse.
// None of it is needed for a JSON POST to a fixed URL. Measured in process by scripts/rpc-transport-cost.ts (a
// simulator in another process, 1,500 calls per round), CPU of this process per call: getLedgerEntries 630-1,180 µs
// through the SDK's client against 240-500 µs here, simulateTransaction 520-950 against 270-560, getTransaction
// 320-750 against 110-210 (2026-11-27, 2 shared cores, load average 6-7); a prepare makes two or three such calls,
// a submit three or more.
//
// What the SDK's client does and this does not: follow redirects (a redirect is an error here, naming where to).
// Proxies: this client ignores HTTP(S)_PROXY / ALL_PROXY. So, on Node 24, does the SDK's, unless Node's fetch is told
// to read them (NODE_USE_ENV_PROXY): with HTTP_PROXY alone it connected directly (a proxy on 127.0.0.1 saw no
// request, 2026-11-27). src/config still picks the SDK's client when a proxy variable is set and CV_RPC_TRANSPORT is
// not, as it did when that client was axios. rpc.Server only ever calls `post(url, body)` and reads `data`.
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
        let req: http.ClientRequest;
        const finish = (err: Error | undefined, value?: JsonPostResponse) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          if (err) reject(err);
          else resolve(value!);
        };
        const send = (fresh: boolean) => {
          let answered = false;
          req = lib.request(
            {
              protocol: u.protocol,
              hostname: u.hostname.startsWith('[') ? u.hostname.slice(1, -1) : u.hostname,
              port: u.port || undefined,
              path: `${u.pathname}${u.search}`,
              method: 'POST',
              ...(u.username ? { auth: `${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}` } : {}),
              headers: {
                'content-type': 'application/json',
                accept: 'application/json',
                'content-length': body.length,
              },
              ...(fresh ? { agent: false } : {}),
            },
            (res) => {
              answered = true;
              read(res, finish);
            },
          );
          const sent = req;
          sent.on('error', (e: NodeJS.ErrnoException) => {
            // An idle keep-alive connection the server closed as this request went out on it: the server read
            // none of it (no answer began), so it goes again, once, on a new connection. The race is wider
            // the busier this process is (its idle timer fires late); any other failure is the caller's.
            if (!settled && !fresh && !answered && sent.reusedSocket && STALE_SOCKET.has(e.code ?? '')) send(true);
            else finish(e);
          });
          sent.end(body);
        };
        const timer = setTimeout(() => {
          const e = new TransportError(`timeout of ${options.timeoutMs}ms exceeded`, undefined, 'ECONNABORTED');
          finish(e);
          req.destroy(e);
        }, options.timeoutMs);
        send(false);
      });
    },
  };
}

/** What a write on a connection the server already closed fails with. */
const STALE_SOCKET: ReadonlySet<string> = new Set(['ECONNRESET', 'EPIPE']);

/** Reads an answer into {status, data}, or the error that says what is wrong with it. */
function read(res: http.IncomingMessage, finish: (err: Error | undefined, value?: JsonPostResponse) => void): void {
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
