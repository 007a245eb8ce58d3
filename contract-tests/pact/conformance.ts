// Response conformance of what the pact tests see: a loopback proxy that forwards every
// request to an upstream (the consumer tests' Pact mock server, or a Prism mock) and checks every answer
// against the spec with express-openapi-validator, as the real apps do with response validation on.
// Requests are not validated here: some interactions send an invalid request on purpose, and the real
// provider and Prism judge requests themselves. A non-conforming answer is recorded and replaced by a
// 599, so the test that saw it fails.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import express from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import { parse } from 'yaml';

export interface ConformanceProxy {
  /** Base URL to send requests to. */
  readonly url: string;
  /** Where requests go; set per test (a Pact mock server lives for one interaction). */
  upstream: string;
  /** Every non-conforming answer seen: `METHOD path → status: what is wrong`. */
  readonly violations: string[];
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'host', 'upgrade']);
const isJson = (mediaType: string) => /^application\/([a-z.+-]+\+)?json\b/i.test(mediaType);

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/**
 * Sends the request on to `upstream` on a connection of its own: a Pact mock server lives for one test,
 * and a pooled connection to the previous one must never carry the next request.
 */
function forward(upstream: string, req: express.Request): Promise<Answer> {
  const headers: http.OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
  }
  const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
  if (body.length > 0) headers['content-length'] = body.length;
  return new Promise((resolve, reject) => {
    const out = http.request(
      new URL(req.originalUrl, upstream),
      { method: req.method, headers, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 502, headers: res.headers, body: Buffer.concat(chunks) }),
        );
        res.on('error', reject);
      },
    );
    out.on('error', reject);
    out.end(body);
  });
}

export async function startConformanceProxy(specPath: string): Promise<ConformanceProxy> {
  const violations: string[] = [];
  const state = { upstream: '' };
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(express.raw({ type: () => true, limit: '2mb' }));
  app.use(
    OpenApiValidator.middleware({
      apiSpec: parse(readFileSync(specPath, 'utf8')) as never,
      validateRequests: false,
      validateSecurity: false,
      validateResponses: { allErrors: true },
      validateApiSpec: false,
    }),
  );
  app.use(async (req, res, next) => {
    try {
      const answer = await forward(state.upstream, req);
      res.status(answer.status);
      for (const [name, value] of Object.entries(answer.headers)) {
        if (value !== undefined && !HOP_BY_HOP.has(name)) res.setHeader(name, value);
      }
      const mediaType = String(answer.headers['content-type'] ?? '');
      if (answer.body.length > 0 && isJson(mediaType)) res.json(JSON.parse(answer.body.toString('utf8')));
      else if (answer.body.length > 0) res.send(answer.body);
      else res.end();
    } catch (err) {
      next(err);
    }
  });
  app.use(
    (
      err: { status?: number; message?: string },
      req: express.Request,
      res: express.Response,
      _next: express.NextFunction,
    ) => {
      const what = `${req.method} ${req.originalUrl} → ${res.statusCode}: ${err.message ?? String(err)}`;
      violations.push(what);
      if (!res.headersSent) {
        res.removeHeader('content-type');
        res.status(599).json({ conformance: what });
      }
    },
  );

  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get upstream() {
      return state.upstream;
    },
    set upstream(url: string) {
      state.upstream = url;
    },
    violations,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
