// The HTTP front of `npm run mock:vault` / `mock:resolver`: it stands before Prism and does what the services
// do at the HTTP layer, which an OpenAPI document cannot state and Prism therefore does not do. What a
// request's schema says stays Prism's to check; the front answers only with the spec's own response examples
// (or, for a method a path lacks, Prism's own 405), and forwards everything else to Prism.
//
// 1. Routing as the services route (docs/vault-api.md "HEAD and methods"): a path of the spec without
//    parameters owns its URL (`/contracts/vault/list-vc-ids` is not `/contracts/vault/{owner}`), and a
//    template only a URL whose parameters fit their patterns; a method the path does not declare is 405 with
//    `Allow`; OPTIONS there is 204 with `Allow`; HEAD where the path declares GET is answered as GET without
//    a body (RFC 9110 §9.3.2).
// 2. A query parameter the operation does not declare → its 400, where the operation has a 400 answer: the
//    services' request validation refuses it (`/ready` and `/metrics` are answered before validation and
//    declare no 400); Prism ignores undeclared parameters.
// 3. `Authorization` is read as the services read it: a Bearer token (any case of the scheme), else absent.
// 4. A body is decoded as the services decode it (Content-Encoding gzip, deflate, br; RFC 9110 §8.4): another
//    coding → the operation's 415; a stream that does not decode → its 400.
// 5. A request body that is not `application/json` where the operation takes JSON → its 400: the services
//    answer 400, while Prism answers the operation's 415, which the specs keep for Content-Encoding.
// 6. A JSON body nested deeper than MAX_DEPTH, or with a lone surrogate (I-JSON, RFC 7493 §2.1) → the
//    operation's 400 (`invalid_json` when it has that example). Prism's parser cannot read the first.
// 7. A write's answer follows its request: a body with exactly the members of one of the request's named
//    examples (`submit`: `{signedXdr}`) gets the success response's example of the same name, unless the
//    client chose one with `Prefer`. Prism alone answers every valid request with the first example.
import http from 'node:http';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import {
  type ApiModel,
  buildModel,
  type OpenApiDocument,
  type Operation,
  type PathRoute,
  resolve,
} from '../src/platform/operations.ts';

type Json = Record<string, any>; // examples are read as the description writes them

const DECODERS: Record<string, (b: Buffer) => Buffer> = {
  gzip: gunzipSync,
  'x-gzip': gunzipSync,
  deflate: inflateSync,
  br: brotliDecompressSync,
  identity: (b) => b,
};
/** The vault API's limit for a body it verifies (vault-api.yaml VerifyCredentialRequest), the lower of the two. */
const MAX_DEPTH = 64;

/** What the front knows of one operation, beyond the operation model (src/platform/operations.ts). */
interface FrontOperation {
  readonly route: PathRoute;
  readonly method: string;
  readonly takesJson: boolean;
  readonly query: ReadonlySet<string>;
  /** Whether the operation has a 400 answer. */
  readonly refuses: boolean;
  /** Request example name → its sorted member names, where the success response has an example of that name. */
  readonly answers: ReadonlyMap<string, string>;
  /** status → [content type, example body] of the operation's response, for the answers the front gives. */
  example(status: number, preferred?: string): { type: string; body: unknown } | undefined;
}

const membersKey = (value: unknown): string | undefined =>
  value && typeof value === 'object' && !Array.isArray(value) ? Object.keys(value).sort().join(',') : undefined;

/** The first media type of a response or request body, its `$ref`s followed by the model's resolver. */
function mediaOf(doc: OpenApiDocument, node: unknown): [string, Json] | [] {
  const [type, media] = Object.entries<Json>(resolve<Json>(doc, node)['content'] ?? {})[0] ?? [];
  return type && media ? [type, media] : [];
}

function exampleOf(doc: OpenApiDocument, op: Operation, status: number, preferred?: string) {
  const [type, media] = mediaOf(doc, op.source.responses?.[String(status)]);
  if (!type || !media) return undefined;
  if (media['example'] !== undefined) return { type, body: media['example'] };
  const examples = Object.entries<Json>(media['examples'] ?? {});
  const chosen = examples.find(([name]) => name === preferred) ?? examples[0];
  return chosen ? { type, body: resolve<Json>(doc, chosen[1])['value'] } : undefined;
}

function frontOperation(doc: OpenApiDocument, route: PathRoute, op: Operation): FrontOperation {
  const responses = op.source.responses ?? {};
  const success = Object.keys(responses).find((s) => /^2\d\d$/.test(s));
  const successExamples = new Set(Object.keys(mediaOf(doc, responses[success ?? ''])[1]?.['examples'] ?? {}));
  const requestBody = resolve<Json>(doc, op.source.requestBody)['content']?.['application/json'] as Json | undefined;
  const answers = new Map<string, string>();
  for (const [name, ex] of Object.entries<Json>(requestBody?.['examples'] ?? {})) {
    const members = membersKey(resolve<Json>(doc, ex)['value']);
    if (members !== undefined && successExamples.has(name)) answers.set(members, name);
  }
  return {
    route,
    method: op.method,
    takesJson: requestBody !== undefined,
    refuses: responses['400'] !== undefined,
    query: new Set(op.parameters.query.map((p) => p.name)),
    answers,
    example: (status, preferred) => exampleOf(doc, op, status, preferred),
  };
}

/** Every operation of the model, its routes most specific first (`/contracts/vault/vc-count` before `{owner}`). */
function operations(model: ApiModel): FrontOperation[] {
  return model.routes.flatMap((route) => route.operations.map((op) => frontOperation(model.document, route, op)));
}

/** How deep a JSON text nests (brackets outside strings); stops counting past `stop`. */
function nesting(text: string, stop: number): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length && max <= stop; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++;
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 91 || c === 123) max = Math.max(max, ++depth);
    else if (c === 93 || c === 125) depth--;
  }
  return max;
}

/** A decision of the front: answer with a spec example, or forward (possibly changed). */
type Decision =
  | { kind: 'answer'; status: number; op?: FrontOperation; preferred?: string; allow?: string }
  | { kind: 'forward'; method: string; body: Buffer; headers: http.OutgoingHttpHeaders; headOnly: boolean };

/** `Allow` of a path: its methods as the spec lists them, HEAD after GET, then OPTIONS. */
function allowOf(own: readonly FrontOperation[]): string {
  const methods = own.map((o) => o.method.toUpperCase()).filter((m) => m !== 'OPTIONS');
  if (methods.includes('GET') && !methods.includes('HEAD')) methods.splice(methods.indexOf('GET') + 1, 0, 'HEAD');
  return [...methods, 'OPTIONS'].join(', ');
}

/** The operations of the path that owns `path`: the spec path it is, the most specific one. */
function owner(ops: FrontOperation[], path: string): FrontOperation[] {
  const first = ops.find((o) => o.route.matches(path));
  return first ? ops.filter((o) => o.route === first.route) : [];
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Whether a parsed JSON value holds a string (or member name) with a lone surrogate. */
function loneSurrogate(value: unknown): boolean {
  if (typeof value === 'string') return LONE_SURROGATE.test(value);
  if (Array.isArray(value)) return value.some(loneSurrogate);
  if (value && typeof value === 'object')
    return Object.entries(value).some(([k, v]) => LONE_SURROGATE.test(k) || loneSurrogate(v));
  return false;
}

function decide(ops: FrontOperation[], req: http.IncomingMessage, raw: Buffer): Decision {
  const url = new URL(req.url ?? '/', 'http://mock');
  const method = (req.method ?? 'GET').toLowerCase();
  const own = owner(ops, url.pathname);
  const headers: http.OutgoingHttpHeaders = { ...req.headers };
  const declares = (m: string) =>
    (own.length > 0 ? own : ops.filter((o) => o.route.fits(url.pathname))).some((o) => o.method === m);
  const asGet = method === 'head' && !declares('head') && declares('get');
  const op = own.find((o) => o.method === (asGet ? 'get' : method));
  if (own.length > 0 && !op) return { kind: 'answer', status: method === 'options' ? 204 : 405, allow: allowOf(own) };
  // A URL that only looks like a template (its parameters do not fit) is no path of the spec for another method.
  const looks = ops.filter((o) => o.route.fits(url.pathname));
  if (own.length === 0 && looks.length > 0 && !looks.some((o) => o.method === (asGet ? 'get' : method)))
    return { kind: 'answer', status: 404 };
  const forward = (body: Buffer): Decision => ({
    kind: 'forward',
    method: asGet ? 'GET' : (req.method ?? 'GET'),
    body,
    headers: { ...headers, 'content-length': String(body.length) },
    headOnly: asGet,
  });
  if (!op) return forward(raw);
  for (const name of url.searchParams.keys()) {
    if (op.refuses && !op.query.has(name) && !name.startsWith('__')) return { kind: 'answer', status: 400, op };
  }
  const bearer = /^bearer\s+(\S+)\s*$/i.exec(String(req.headers['authorization'] ?? ''));
  if (bearer) headers['authorization'] = `Bearer ${bearer[1]}`;
  else delete headers['authorization'];
  if (!op.takesJson || raw.length === 0) return forward(raw);

  const type = String(req.headers['content-type'] ?? '')
    .split(';')[0]!
    .trim()
    .toLowerCase();
  if (type !== '' && type !== 'application/json') return { kind: 'answer', status: 400, op };
  const decode =
    DECODERS[
      String(req.headers['content-encoding'] ?? 'identity')
        .trim()
        .toLowerCase()
    ];
  if (!decode) return { kind: 'answer', status: 415, op };
  let body: Buffer;
  try {
    body = decode(raw);
  } catch {
    return { kind: 'answer', status: 400, op, preferred: 'invalid_body_encoding' };
  }
  delete headers['content-encoding'];
  const text = body.toString('utf8');
  if (nesting(text, MAX_DEPTH) > MAX_DEPTH) return { kind: 'answer', status: 400, op, preferred: 'invalid_json' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return forward(body);
  }
  if (loneSurrogate(parsed)) return { kind: 'answer', status: 400, op, preferred: 'invalid_json' };
  const name = op.answers.get(membersKey(parsed) ?? '');
  if (headers['prefer'] === undefined && name !== undefined) headers['prefer'] = `example=${name}`;
  return forward(body);
}

/** The body of an answer the spec has no example for: Prism's own problem for a method a path lacks, else RFC 9457's. */
function problem(status: number, method: string, path: string) {
  return status === 405
    ? {
        type: 'https://stoplight.io/prism/errors#NO_METHOD_MATCHED_ERROR',
        title: 'Route resolved, but no method matched',
        status,
        detail: `The route ${path} has been matched, but it does not have "${method}" method defined`,
      }
    : { type: 'about:blank', title: http.STATUS_CODES[status] ?? 'Error', status };
}

/** A server that applies the front's rules for `spec` and forwards the rest to Prism at `upstream`. */
export function createMockFront(spec: object, upstream: string): http.Server {
  const ops = operations(buildModel(spec as OpenApiDocument));
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const decision = decide(ops, req, Buffer.concat(chunks));
      if (decision.kind === 'answer') {
        const method = (req.method ?? 'GET').toLowerCase();
        const allow = decision.allow ? { allow: decision.allow } : {};
        if (decision.status === 204) {
          res.writeHead(204, allow);
          res.end();
          return;
        }
        const ex = decision.op?.example(decision.status, decision.preferred);
        const path = new URL(req.url ?? '/', 'http://mock').pathname;
        const body = ex?.body ?? problem(decision.status, method, path);
        res.writeHead(decision.status, { 'content-type': ex?.type ?? 'application/problem+json', ...allow });
        res.end(method === 'head' ? undefined : JSON.stringify(body));
        return;
      }
      const out = http.request(
        new URL(req.url ?? '/', upstream),
        { method: decision.method, headers: decision.headers, agent: false },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          if (decision.headOnly) {
            answer.resume();
            res.end();
          } else answer.pipe(res);
        },
      );
      out.on('error', (err) => {
        res.writeHead(502, { 'content-type': 'text/plain' });
        res.end(`the Prism mock did not answer: ${err.message}`);
      });
      out.end(decision.body);
    });
  });
  // Longer than a client keeps an idle connection (undici: 4 s), so that a reused connection is never one the
  // front is closing at that moment (Node's default is 5 s).
  server.keepAliveTimeout = 65_000;
  return server;
}
