// Test helpers: an app on an ephemeral port, and plain node:http requests (no client-side pooling unless
// an agent is given), so tests see exactly the connections they open.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RequestListener } from 'node:http';
import { createHttpServer } from '../http/server.ts';

export interface Served {
  server: http.Server;
  port: number;
  close(): Promise<void>;
}

export function serve(app: RequestListener): Promise<Served> {
  return new Promise((resolve, reject) => {
    const server = createHttpServer(app);
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        server,
        port,
        close: () =>
          new Promise<void>((done) => {
            if (!server.listening) return done();
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}

export interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export function request(
  port: number,
  options: { method?: string; path?: string; headers?: Record<string, string>; body?: string; agent?: http.Agent } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, method: options.method ?? 'GET', path: options.path ?? '/', headers: options.headers, agent: options.agent ?? false },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}
