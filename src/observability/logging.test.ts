import { spawn } from 'node:child_process';
import http from 'node:http';
import express from 'express';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  REDACTED_FIELDS,
  REQUEST_LINE_FIELDS,
  createLogger,
  isoTimestamp,
  withFields,
  requestLog,
  type LogLevel,
  type Logger,
} from './logging.ts';
import { request, serve, type Served } from '../../test-support/observability.ts';

const T0 = Date.UTC(2025, 0, 2, 3, 4, 5, 678);
const capture = (level: LogLevel = 'debug') => {
  const lines: string[] = [];
  const logger = createLogger({ level, write: (l) => lines.push(l), now: () => T0 });
  return { logger, lines, parsed: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>) };
};

describe('createLogger', () => {
  describe.each([
    { given: 'silent' as const, want: [] },
    { given: 'error' as const, want: ['error'] },
    { given: 'warn' as const, want: ['error', 'warn'] },
    { given: 'info' as const, want: ['error', 'warn', 'info'] },
    { given: 'debug' as const, want: ['error', 'warn', 'info', 'debug'] },
  ])('level $given', ({ given, want }) => {
    it(`writes ${want.join(', ') || 'nothing'}`, () => {
      const { logger, parsed } = capture(given);
      for (const l of ['error', 'warn', 'info', 'debug'] as const) logger[l]('m');
      expect(parsed().map((e) => e.level)).toEqual(want);
    });
  });

  it("writes {level, time, ...fields, msg} as one JSON line (pino's order), with the injected clock", () => {
    const { logger, lines } = capture();
    logger.info('hello', { a: 1, nested: { b: [1, 2] } });
    expect(lines).toEqual([
      '{"level":"info","time":"2025-01-02T03:04:05.678Z","a":1,"nested":{"b":[1,2]},"msg":"hello"}',
    ]);
  });

  it('does not let fields overwrite time, level or msg', () => {
    const { logger, parsed } = capture();
    logger.info('real', { time: 'x', level: 'debug', msg: 'fake' });
    expect(parsed()[0]).toMatchObject({ time: '2025-01-02T03:04:05.678Z', level: 'info', msg: 'real' });
  });

  it.each([
    { given: { authorization: 'Bearer abc' }, want: { authorization: '[redacted]' } },
    {
      given: { headers: { 'X-SVC-Key': 'k', 'x-api-key': 'k', accept: 'json' } },
      want: { headers: { 'X-SVC-Key': '[redacted]', 'x-api-key': '[redacted]', accept: 'json' } },
    },
    { given: { req: { body: { vcData: 'secret' } } }, want: { req: { body: '[redacted]' } } },
    { given: { list: [{ vc_data: 'x', ok: 1 }] }, want: { list: [{ vc_data: '[redacted]', ok: 1 }] } },
    {
      given: { signedXdr: 'AAAA', query: { owner: 'G' }, password: 'p' },
      want: { signedXdr: '[redacted]', query: '[redacted]', password: '[redacted]' },
    },
    { given: { keyId: 'abcd', n: 10n }, want: { keyId: 'abcd', n: '10' } },
  ])('redacts secret and payload fields: $given', ({ given, want }) => {
    const { logger, parsed } = capture();
    logger.info('m', given);
    const { time: _t, level: _l, msg: _m, ...fields } = parsed()[0]!;
    expect(fields).toEqual(want);
  });

  it.each([
    { given: { token: 'abc', ok: 1 }, want: '"token":"[redacted]","ok":1' },
    { given: { 'X-Api-Key': 'k', status: 200 }, want: '"X-Api-Key":"[redacted]","status":200' },
    { given: { seed: undefined, n: null, b: true }, want: '"n":null,"b":true' },
    {
      given: {
        service: 'vault-api',
        requestId: 'r',
        route: '/config',
        status: 200,
        ms: 1.5,
        keyId: 'k1',
        aborted: true,
        gone: undefined,
        nan: Number.NaN,
      },
      want: '"service":"vault-api","requestId":"r","route":"/config","status":200,"ms":1.5,"keyId":"k1","aborted":true,"nan":null',
    },
  ])('writes flat lines (strings, numbers, booleans only) exactly as the redacting path: $given', ({ given, want }) => {
    const { logger, lines } = capture();
    logger.info('m', given);
    logger.info('m', given); // the second time with the redaction of each name already decided
    const line = `{"level":"info","time":"2025-01-02T03:04:05.678Z",${want},"msg":"m"}`;
    expect(lines).toEqual([line, line]);
  });

  it('redacts a flat field bound by child() and a field named like a secret in any case or spelling', () => {
    const { logger, lines } = capture();
    logger.child({ privateKey: 'S...' }).info('m', { SECRET: 's', set_cookie: 'c', Key: 'k', keyid: 'id' });
    expect(lines).toEqual([
      '{"level":"info","time":"2025-01-02T03:04:05.678Z","privateKey":"[redacted]","SECRET":"[redacted]","set_cookie":"[redacted]","Key":"[redacted]","keyid":"id","msg":"m"}',
    ]);
  });

  it('writes errors as {name, message, code}, circular values once', () => {
    const { logger, parsed } = capture('info');
    const err = Object.assign(new Error('boom'), { code: 'E_X' });
    const loop: Record<string, unknown> = { a: 1 };
    loop.self = loop;
    logger.error('failed', { err, loop });
    expect(parsed()[0]).toMatchObject({
      err: { name: 'Error', message: 'boom', code: 'E_X' },
      loop: { a: 1, self: '[Circular]' },
    });
    expect((parsed()[0]!.err as Record<string, unknown>).stack).toBeUndefined();
  });

  it('child loggers add their fields; sink takes the apps’ log(entry) shape', () => {
    const { logger, parsed } = capture();
    logger.child({ service: 'resolver' }).info('one', { x: 1 });
    logger.sink({ event: 'rate_limit_unavailable', message: 'down' });
    logger.sink({ level: 'error', msg: 'oops', event: 'e' });
    logger.sink({ level: 'nonsense' });
    logger.sink({ level: 'warn', error: 'idempotency_release_failed' });
    const T = '2025-01-02T03:04:05.678Z';
    expect(parsed()).toEqual([
      { time: '2025-01-02T03:04:05.678Z', level: 'info', msg: 'one', service: 'resolver', x: 1 },
      { time: '2025-01-02T03:04:05.678Z', level: 'info', msg: 'rate_limit_unavailable', message: 'down' },
      { time: '2025-01-02T03:04:05.678Z', level: 'error', msg: 'oops', event: 'e' },
      { time: '2025-01-02T03:04:05.678Z', level: 'info', msg: 'event' },
      { time: T, level: 'warn', msg: 'idempotency_release_failed', error: 'idempotency_release_failed' },
    ]);
  });

  it("withFields puts its fields on every line, a line's own winning, written once", () => {
    const { logger, parsed, lines } = capture();
    const app = withFields(logger, { service: 'vault-api-testnet' });
    app.warn('store connection error', { suppressed: 2 });
    app.info('request', { service: 'vault-api-testnet', status: 200 });
    app.sink({ event: 'cache_unavailable' });
    app.child({ requestId: 'r1' }).error('boom');
    expect(parsed().map((l) => [l['msg'], l['service']])).toEqual([
      ['store connection error', 'vault-api-testnet'],
      ['request', 'vault-api-testnet'],
      ['cache_unavailable', 'vault-api-testnet'],
      ['boom', 'vault-api-testnet'],
    ]);
    for (const line of lines) expect(line.match(/"service"/g)).toHaveLength(1);
  });

  it("withFields writes a line's own fields in its own order, theirs first when the line does not lead with them", () => {
    const { logger, lines } = capture();
    const app = withFields(logger, { service: 'svc', zone: 'a' });
    app.info('leads', { service: 'own', zone: 'b', status: 200 });
    app.info('other order', { zone: 'b', service: 'own', status: 200 });
    app.info('some', { status: 200, service: 'own' });
    app.info('none');
    expect(lines.map((l) => l.replace(/"time":"[^"]*",/, ''))).toEqual([
      '{"level":"info","service":"own","zone":"b","status":200,"msg":"leads"}',
      '{"level":"info","service":"own","zone":"b","status":200,"msg":"other order"}',
      '{"level":"info","service":"own","zone":"a","status":200,"msg":"some"}',
      '{"level":"info","service":"svc","zone":"a","msg":"none"}',
    ]);
  });

  it('isoTimestamp writes the clock’s millisecond, made again whenever the clock moves', () => {
    let t = T0;
    const stamp = isoTimestamp(() => t);
    expect(stamp()).toBe(',"time":"2025-01-02T03:04:05.678Z"');
    expect(stamp()).toBe(',"time":"2025-01-02T03:04:05.678Z"');
    t += 1;
    expect(stamp()).toBe(',"time":"2025-01-02T03:04:05.679Z"');
    t -= 1_000;
    expect(stamp()).toBe(',"time":"2025-01-02T03:04:04.679Z"');
  });

  it('the request line’s field names skip the name rule: none of them is redacted or written by pino itself', () => {
    for (const name of REQUEST_LINE_FIELDS) {
      expect(REDACTED_FIELDS.has(name.toLowerCase().replace(/[-_]/g, ''))).toBe(false);
      expect(['level', 'time', 'msg']).not.toContain(name);
    }
    // …and a secret under another name on the same line is still redacted.
    const { logger, parsed } = capture();
    logger.info('request', { service: 's', status: 200, apiKey: 'k' });
    expect(parsed()[0]).toMatchObject({ service: 's', status: 200, apiKey: '[redacted]' });
  });

  it('never throws when the writer does', () => {
    const logger = createLogger({
      level: 'info',
      write: () => {
        throw new Error('disk full');
      },
    });
    expect(() => logger.info('m')).not.toThrow();
  });
});

describe('createLogger on standard output (buffered)', () => {
  it('writes a quiet process’s line without waiting for more, and what is held when the process exits', async () => {
    // A process that logs `first`, then on a line from its parent logs `last` and exits at once.
    const script = `
      import { createLogger } from ${JSON.stringify(new URL('./logging.ts', import.meta.url).href)};
      const logger = createLogger({ level: 'info' });
      logger.info('first');
      process.stdin.once('data', () => { logger.info('last', { n: 2 }); process.exit(0); });
    `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    let out = '';
    const lines = () =>
      out
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>);
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    await new Promise<void>((resolve) => {
      child.stdout.on('data', (c: Buffer) => {
        out += c.toString();
        if (lines().some((l) => l['msg'] === 'first')) resolve();
      });
    });
    child.stdin.write('go\n');
    expect(await exited).toBe(0);
    expect(lines().map((l) => [l['msg'], l['n']])).toEqual([
      ['first', undefined],
      ['last', 2],
    ]);
  });
});

describe('requestLog', () => {
  const API_KEY = 'f'.repeat(64);
  const OWNER = 'GCFIRY65OQE7DFP5KLNS2PF2LVZMUZYJX4OZIEQ36N2IQANUB5XVYOJR';
  const VC_DATA = '{"credentialSubject":{"name":"Ada Lovelace-4711"}}';
  let served: Served | undefined;
  afterEach(async () => {
    await served?.close();
    served = undefined;
  });

  /** Told when a request reaches /hang (which never answers). */
  let onHang: () => void = () => undefined;

  /** An app with the request log first, a body parser, a fake auth that sets a key id, and a few routes. */
  async function start(logger: Logger, extra: Partial<Parameters<typeof requestLog>[0]> = {}) {
    let t = 1000;
    const app = express();
    app.use(
      requestLog({
        logger,
        service: 'vault-api',
        getKeyId: (req) => (req as { keyId?: string }).keyId,
        now: () => (t += 12.5),
        newId: () => 'generated-id',
        ...extra,
      }),
    );
    app.use(express.json());
    app.use((req, _res, next) => {
      if (req.get('x-svc-key') === API_KEY) (req as { keyId?: string }).keyId = 'a1b2c3d4e5f60718';
      next();
    });
    const vc = express.Router();
    vc.post('/issue', (_req, res) => void res.status(200).json({ xdr: 'AAAA' }));
    app.use('/contracts/vc', vc);
    app.get('/contracts/vault/:owner', (_req, res) => void res.json({ ok: true }));
    app.get('/boom', (_req, res) => void res.status(500).json({ error: 'internal' }));
    app.get('/hang', () => onHang());
    served = await serve(app);
    return served;
  }

  it('logs one line per request with route template, status, latency and key id — never the key, body or query', async () => {
    const { logger, lines, parsed } = capture('info');
    const { port } = await start(logger);
    const res = await request(port, {
      method: 'POST',
      path: `/contracts/vc/issue?owner=${OWNER}&apiKey=${API_KEY}`,
      headers: {
        'content-type': 'application/json',
        'X-SVC-Key': API_KEY,
        authorization: `Bearer ${API_KEY}`,
        'x-request-id': 'client-id-1',
      },
      body: JSON.stringify({ owner: OWNER, vcId: 'vc-1', vcData: VC_DATA }),
    });
    expect(res.status).toBe(200);
    expect(res.headers['x-request-id']).toBe('client-id-1');
    await until(() => lines.length === 1);
    expect(parsed()).toEqual([
      {
        time: '2025-01-02T03:04:05.678Z',
        level: 'info',
        msg: 'request',
        service: 'vault-api',
        requestId: 'client-id-1',
        method: 'POST',
        route: '/contracts/vc/issue',
        status: 200,
        ms: 12.5,
        keyId: 'a1b2c3d4e5f60718',
      },
    ]);
    for (const secret of [API_KEY, OWNER, 'Ada Lovelace', 'vcData', 'vc-1', 'apiKey'])
      expect(lines[0]).not.toContain(secret);
  });

  it.each([
    {
      name: 'path parameters as the template',
      path: `/contracts/vault/${OWNER}`,
      route: '/contracts/vault/{owner}',
      status: 200,
      level: 'info',
    },
    { name: 'no matching route', path: `/nothing/${OWNER}`, route: 'unmatched', status: 404, level: 'info' },
    { name: '5xx at error level', path: '/boom', route: '/boom', status: 500, level: 'error' },
  ])('$name', async ({ path, route, status, level }) => {
    const { logger, lines, parsed } = capture('info');
    const { port } = await start(logger);
    expect((await request(port, { path })).status).toBe(status);
    await until(() => lines.length === 1);
    expect(parsed()[0]).toMatchObject({ route, status, level });
    expect(parsed()[0]).not.toHaveProperty('keyId');
    expect(lines[0]).not.toContain(OWNER);
  });

  it.each([
    { given: undefined, want: 'generated-id' },
    { given: 'x'.repeat(128), want: 'x'.repeat(128) },
    { given: 'x'.repeat(129), want: 'generated-id' },
    { given: 'has space', want: 'generated-id' },
  ])('request id: sent $given → $want', async ({ given, want }) => {
    const { logger, lines, parsed } = capture('info');
    const { port } = await start(logger);
    const res = await request(port, { path: '/boom', headers: given === undefined ? {} : { 'x-request-id': given } });
    expect(res.headers['x-request-id']).toBe(want);
    await until(() => lines.length === 1);
    expect(parsed()[0]!.requestId).toBe(want);
  });

  it('keeps an X-Request-ID set before it, and reports one set after it', async () => {
    const { logger, lines, parsed } = capture('info');
    const app = express();
    app.use((_req, res, next) => void (res.setHeader('X-Request-ID', 'earlier'), next()));
    app.use(requestLog({ logger, service: 's' }));
    app.get('/a', (_req, res) => void res.json({}));
    const later = express();
    later.use(requestLog({ logger, service: 's', newId: () => 'mine' }));
    later.use((_req, res, next) => void (res.setHeader('X-Request-ID', 'app-own'), next()));
    later.get('/a', (_req, res) => void res.json({}));
    served = await serve(app);
    const other = await serve(later);
    try {
      expect((await request(served.port, { path: '/a' })).headers['x-request-id']).toBe('earlier');
      expect((await request(other.port, { path: '/a' })).headers['x-request-id']).toBe('app-own');
      await until(() => lines.length === 2);
      expect(parsed().map((l) => l.requestId)).toEqual(['earlier', 'app-own']);
    } finally {
      await other.close();
    }
  });

  it('uses routeOf (e.g. the OpenAPI route) when given', async () => {
    const { logger, lines, parsed } = capture('info');
    const { port } = await start(logger, { routeOf: () => '/contracts/vault/:owner' });
    await request(port, { path: '/boom' });
    await until(() => lines.length === 1);
    expect(parsed()[0]!.route).toBe('/contracts/vault/{owner}');
  });

  it('logs a request whose client went away as aborted', async () => {
    const { logger, lines, parsed } = capture('info');
    const { port } = await start(logger);
    const req = http.get({ host: '127.0.0.1', port, path: '/hang', agent: false });
    req.on('error', () => undefined);
    await new Promise<void>((r) => (onHang = r));
    req.destroy();
    await until(() => lines.length === 1);
    expect(parsed()[0]).toMatchObject({ route: '/hang', aborted: true });
  }, 10_000);
});

/** Resolves once `cond` holds (log lines are written on the response's close event). */
const until = (cond: () => boolean) => vi.waitFor(() => expect(cond()).toBe(true), { timeout: 2000 });
