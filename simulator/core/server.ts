// The HTTP face of the simulator: POST /<network>/rpc (JSON-RPC 2.0, single or batch), GET|POST
// /<network>/friendbot?addr=G…, GET / (network summary). Bodies over 1 MB are refused with 413.
import http from 'node:http';
import { FriendbotError, type SimNetwork } from './network.ts';
import { INTERNAL_ERROR, INVALID_REQUEST, PARSE_ERROR, RpcError } from './rpc/error.ts';
import type { Network } from './network-names.ts';

const MAX_BODY = 1_048_576;

interface JsonRpcRequest {
  jsonrpc?: unknown;
  id?: unknown;
  method?: unknown;
  params?: unknown;
}

type Send = (res: http.ServerResponse, status: number, body: unknown) => void;

function send(res: http.ServerResponse, status: number, body: unknown): void {
  const text = body === undefined ? '' : JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    'access-control-allow-origin': '*',
  });
  res.end(text);
}

const rpcError = (id: unknown, code: number, message: string, data?: unknown) => ({
  jsonrpc: '2.0',
  id: id ?? null,
  error: data === undefined ? { code, message } : { code, message, data },
});

async function handleOne(net: SimNetwork, req: JsonRpcRequest): Promise<object | undefined> {
  if (typeof req !== 'object' || req === null || Array.isArray(req))
    return rpcError(null, INVALID_REQUEST, 'invalid request');
  const id = req.id;
  if (req.jsonrpc !== '2.0' || typeof req.method !== 'string') return rpcError(id, INVALID_REQUEST, 'invalid request');
  try {
    const result = await net.rpc(req.method, req.params);
    return id === undefined ? undefined : { jsonrpc: '2.0', id, result };
  } catch (e) {
    if (e instanceof RpcError) return rpcError(id, e.code, e.message, e.data);
    return rpcError(id, INTERNAL_ERROR, e instanceof Error ? e.message : String(e));
  }
}

function readBody(req: http.IncomingMessage): Promise<Buffer | 'too-large'> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > MAX_BODY) {
      resolve('too-large');
      req.resume();
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) over = true;
      else chunks.push(c);
    });
    req.on('end', () => resolve(over ? 'too-large' : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

async function rpc(net: SimNetwork, req: http.IncomingMessage, res: http.ServerResponse, send: Send): Promise<void> {
  const body = await readBody(req);
  if (body === 'too-large') return send(res, 413, rpcError(null, INVALID_REQUEST, 'request body exceeds 1 MB'));
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return send(res, 200, rpcError(null, PARSE_ERROR, 'parse error'));
  }
  if (Array.isArray(parsed)) {
    if (parsed.length === 0) return send(res, 200, rpcError(null, INVALID_REQUEST, 'empty batch'));
    const out = (await Promise.all(parsed.map((r) => handleOne(net, r as JsonRpcRequest)))).filter(
      (r) => r !== undefined,
    );
    return out.length ? send(res, 200, out) : send(res, 204, undefined);
  }
  const out = await handleOne(net, parsed as JsonRpcRequest);
  return out ? send(res, 200, out) : send(res, 204, undefined);
}

/** With ledger timing on, the answer waits for the ledger that funds the account (SimNetwork.requestFriendbot). */
async function friendbot(net: SimNetwork, url: URL, res: http.ServerResponse, send: Send): Promise<void> {
  const addr = url.searchParams.get('addr') ?? '';
  try {
    send(res, 200, await net.requestFriendbot(addr));
  } catch (e) {
    if (e instanceof FriendbotError) send(res, e.status, e.body);
    else
      send(res, 500, {
        title: 'Internal Server Error',
        status: 500,
        detail: e instanceof Error ? e.message : String(e),
      });
  }
}

export interface HttpServerOptions {
  /** Runs before every answer, which waits for its promise (the state journal's flush: what the answer
   *  reveals is on disk first). */
  beforeAnswer?: () => Promise<void> | undefined;
}

export function createHttpServer(networks: Record<Network, SimNetwork>, opts: HttpServerOptions = {}): http.Server {
  const before = opts.beforeAnswer;
  // Not durable: the client must not learn of a change that a crash could undo.
  const notDurable = (res: http.ServerResponse, e: unknown) =>
    send(res, 500, rpcError(null, INTERNAL_ERROR, `state journal: ${e instanceof Error ? e.message : String(e)}`));
  const answer: Send = before
    ? (res, status, body) => {
        let pending: Promise<void> | undefined;
        try {
          pending = before();
        } catch (e) {
          notDurable(res, e);
          return;
        }
        if (!pending) return send(res, status, body);
        pending.then(
          () => send(res, status, body),
          (e: unknown) => notDurable(res, e),
        );
      }
    : send;
  const lookup = (n: string): SimNetwork | undefined => (n === 'testnet' || n === 'mainnet' ? networks[n] : undefined);
  return http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://simulator.local');
    if (req.method === 'OPTIONS') {
      res.writeHead(204, {
        'access-control-allow-origin': '*',
        'access-control-allow-methods': 'GET, POST, OPTIONS',
        'access-control-allow-headers': 'content-type',
      });
      res.end();
      return;
    }
    const m = /^\/([a-z]+)\/(rpc|friendbot)\/?$/.exec(url.pathname);
    const net = m ? lookup(m[1]!) : undefined;
    if (m && net && m[2] === 'rpc' && req.method === 'POST') {
      rpc(net, req, res, answer).catch((e: unknown) => answer(res, 500, rpcError(null, INTERNAL_ERROR, String(e))));
      return;
    }
    if (m && net && m[2] === 'friendbot' && (req.method === 'GET' || req.method === 'POST')) {
      req.resume();
      void friendbot(net, url, res, answer);
      return;
    }
    req.resume();
    if (url.pathname === '/' && req.method === 'GET') {
      const summary = Object.entries(networks).map(([k, n]) => [
        k,
        { ...n.info, admin: { publicKey: n.info.admin.publicKey } },
      ]);
      send(res, 200, { simulator: 'credential-vault', networks: Object.fromEntries(summary) });
      return;
    }
    if (m && net) send(res, 405, { error: 'method not allowed' });
    else send(res, 404, { error: 'not found' });
  });
}
