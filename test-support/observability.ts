// Test helpers: an app on an ephemeral port, plain node:http requests (no client-side pooling unless an
// agent is given, so tests see exactly the connections they open), and a strict exposition-format reader.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RequestListener } from 'node:http';
import { createHttpServer } from '../src/http/server.ts';

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
      {
        host: '127.0.0.1',
        port,
        method: options.method ?? 'GET',
        path: options.path ?? '/',
        headers: options.headers,
        agent: options.agent ?? false,
      },
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

// ---- a strict reader of the text exposition format 0.0.4, for tests ----
// Independent of prom-client, so a test that parses /metrics also proves the output well-formed. (The npm
// parser parse-prometheus-text-format drops the labels, _sum and _count of histogram series.)

/** One line of the exposition: a sample name (with `_bucket`/`_sum`/`_count` for histograms), labels, value. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface ParsedFamily {
  name: string;
  type: 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';
  help?: string;
  samples: Sample[];
}

const SAMPLE_LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?[ \t]+(\S+)(?:[ \t]+(-?\d+))?$/;
const LABEL_PAIR = /^[ \t]*([a-zA-Z_][a-zA-Z0-9_]*)[ \t]*=[ \t]*"((?:[^"\\\n]|\\[\\"n])*)"[ \t]*(,|$)/;

/**
 * Parses the text format 0.0.4 strictly: every line is a HELP, a TYPE, another comment, blank, or a
 * well-formed sample; a sample belongs to the family of the latest TYPE whose name it extends. Throws on
 * anything else, so a test that parses the output also proves it well-formed.
 */
export function parseExposition(text: string): Map<string, ParsedFamily> {
  const families = new Map<string, ParsedFamily>();
  let current: ParsedFamily | undefined;
  const familyOf = (name: string) => {
    const f = families.get(name) ?? { name, type: 'untyped' as const, samples: [] };
    families.set(name, f);
    return f;
  };
  text.split('\n').forEach((line, i) => {
    const fail = (why: string) => {
      throw new Error(`line ${i + 1}: ${why}: ${line}`);
    };
    if (line.trim() === '') return;
    if (line.startsWith('#')) {
      const m = /^#[ \t]+(HELP|TYPE)[ \t]+([a-zA-Z_:][a-zA-Z0-9_:]*)(?:[ \t]+(.*))?$/.exec(line);
      if (!m) return;
      const f = familyOf(m[2]!);
      if (m[1] === 'HELP') {
        f.help = (m[3] ?? '').replace(/\\(\\|n)/g, (_, c: string) => (c === 'n' ? '\n' : '\\'));
      } else {
        if (!['counter', 'gauge', 'histogram', 'summary', 'untyped'].includes(m[3] ?? '')) fail('unknown type');
        if (f.samples.length > 0) fail('TYPE after samples');
        f.type = m[3] as ParsedFamily['type'];
        current = f;
      }
      return;
    }
    const m = SAMPLE_LINE.exec(line);
    if (!m) return fail('not a sample');
    const labels: Record<string, string> = {};
    let rest = m[3] ?? '';
    while (rest.trim() !== '') {
      const p = LABEL_PAIR.exec(rest);
      if (!p) return fail('bad labels');
      if (p[1]! in labels) fail(`label ${p[1]} twice`);
      labels[p[1]!] = p[2]!.replace(/\\([\\"n])/g, (_, c: string) => (c === 'n' ? '\n' : c));
      rest = rest.slice(p[0].length);
    }
    const raw = m[4]!;
    // NaN in any case, as Prometheus's own parser (Go's ParseFloat) reads it: prom-client writes `Nan`.
    const nan = /^nan$/i.test(raw);
    const value = raw === '+Inf' ? Infinity : raw === '-Inf' ? -Infinity : nan ? NaN : Number(raw);
    if (Number.isNaN(value) && !nan) fail('bad value');
    const name = m[1]!;
    const suffixes =
      current?.type === 'histogram'
        ? ['_bucket', '_sum', '_count']
        : current?.type === 'summary'
          ? ['_sum', '_count']
          : [];
    const owner =
      current && (name === current.name || suffixes.some((s) => name === current!.name + s)) ? current : familyOf(name);
    owner.samples.push({ name, labels, value });
  });
  return families;
}
