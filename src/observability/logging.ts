// Structured logs on pino: one JSON object per line, `{level, time, ...fields, msg}`, and the request log
// line. What a line must never hold — an API key, a body or payload, a query string — is kept out by
// construction (the request line is built from an allow-list) and, as a second guard, by redacting fields
// whose names say they hold secrets or payloads, wherever a caller puts them (pino's `redact` only knows
// fixed paths, so the name rule runs in its `formatters`; the header paths are given to `redact` as well).
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Request, RequestHandler, Response } from 'express';
import { pino, type DestinationStream, type Logger as PinoLogger } from 'pino';
import { routeTemplates, type RouteOf } from './route.ts';
import type { Clock } from '../domain.ts';

export type LogLevel = 'silent' | 'error' | 'warn' | 'info' | 'debug';
export type LogFields = Record<string, unknown>;

export const LOG_LEVELS: readonly LogLevel[] = ['silent', 'error', 'warn', 'info', 'debug'];

/** Field names whose values are replaced by `[redacted]` at any depth (compared lower-case, without `-`/`_`). */
export const REDACTED_FIELDS: ReadonlySet<string> = new Set([
  'authorization',
  'cookie',
  'setcookie',
  'xsvckey',
  'xapikey',
  'apikey',
  'key',
  'keys',
  'secret',
  'password',
  'token',
  'privatekey',
  'seed',
  'encryptionkey',
  'encryptionkeys',
  'databaseurl',
  'redisurl',
  'body',
  'payload',
  'vcdata',
  'signedxdr',
  'xdr',
  'query',
]);
/** The same headers as pino `redact` paths, where HTTP loggers put them. */
export const REDACT_PATHS: readonly string[] = ['req.headers', 'headers'].flatMap((h) =>
  ['authorization', 'cookie', '["x-svc-key"]', '["x-api-key"]'].map((n) => `${h}${n.startsWith('[') ? '' : '.'}${n}`),
);
const REDACTED = '[redacted]';
/** Whether a field of this name is redacted (a tenth of a microsecond: not worth a cache). */
const redacts = (name: string): boolean => REDACTED_FIELDS.has(name.toLowerCase().replace(/[-_]/g, ''));
/** Written by pino itself: a field of these names would give a line two of them. */
const RESERVED: ReadonlySet<string> = new Set(['level', 'time', 'msg']);

export interface LoggerOptions {
  /** Lines below this level are dropped; `silent` drops all. */
  level: LogLevel;
  /** Receives each line without its newline (default: stdout through pino's own destination). */
  write?: (line: string) => void;
  /** Milliseconds since the epoch, for `time` (default Date.now). */
  now?: Clock;
}

export interface Logger {
  readonly level: LogLevel;
  enabled(level: Exclude<LogLevel, 'silent'>): boolean;
  error(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  debug(msg: string, fields?: LogFields): void;
  /** A logger that adds `fields` to every line (a line's own fields win). */
  child(fields: LogFields): Logger;
  /**
   * The `log(entry)` callback the apps take (`deps.log`): `entry.level` picks the level (default info),
   * `entry.msg` or `entry.event` the message; the rest become fields.
   */
  readonly sink: (entry: LogFields) => void;
  /** The pino logger underneath, for libraries that take one (pino-http, fastify, …). */
  readonly pino: PinoLogger;
}

export function createLogger(options: LoggerOptions): Logger {
  const now = options.now ?? Date.now;
  const withStack = options.level === 'debug';
  const write = options.write;
  const destination = write
    ? {
        write(line: string) {
          try {
            write(line.endsWith('\n') ? line.slice(0, -1) : line);
          } catch {
            // Logging never breaks the request that logs.
          }
        },
      }
    : bufferedStdout();
  const p = pino(
    {
      level: options.level,
      base: undefined, // no pid/hostname: the platform's log shipper knows where a line came from
      messageKey: 'msg',
      timestamp: isoTimestamp(now),
      redact: { paths: [...REDACT_PATHS], censor: REDACTED },
      // Errors are written by `clean` below, wherever they are; pino's own `err` serializer would run first.
      serializers: { err: (value: unknown) => value },
      formatters: {
        level: (label) => ({ level: label }),
        log: (fields) => clean(fields, withStack),
      },
    },
    destination,
  );
  return wrap(p, withStack);
}

/** Lines are held until this many bytes are waiting, then written in one go (one write for a dozen lines). */
export const LOG_BUFFER_BYTES = 4096;
/** …and never longer than this (ms), so a quiet service's lines still show at once to a reader. */
export const LOG_FLUSH_EVERY_MS = 100;

/**
 * Standard output for the lines, buffered: a request's line is no longer a write of its own (a system call per
 * request, the largest share of the request log's time in docs/benchmarks.md "The hot path"). Writes stay
 * synchronous, so a full pipe still holds the process rather than filling its memory; what is held is written
 * every LOG_FLUSH_EVERY_MS and when the process exits.
 */
function bufferedStdout(): DestinationStream & { flushSync(): void } {
  const out = pino.destination({ fd: 1, sync: true, minLength: LOG_BUFFER_BYTES, periodicFlush: LOG_FLUSH_EVERY_MS });
  process.once('exit', () => {
    try {
      out.flushSync();
    } catch {
      // Nothing more can be done for the lines of a process that is going away.
    }
  });
  return out;
}

/**
 * pino's `timestamp`: `,"time":"<ISO 8601>"`. Lines come many to a millisecond under load, so the text of the
 * last millisecond is kept and made again only when the clock has moved.
 */
export function isoTimestamp(now: Clock): () => string {
  let lastMs = Number.NaN;
  let last = '';
  return () => {
    const ms = now();
    if (ms !== lastMs) {
      last = `,"time":"${new Date(ms).toISOString()}"`;
      lastMs = ms;
    }
    return last;
  };
}

/** Whether `own`'s first keys are `keys`, in that order: then `{...fields, ...own}` would be `own` itself. */
function leadsWith(own: LogFields, keys: readonly string[]): boolean {
  let i = 0;
  for (const key in own) {
    if (i === keys.length) return true;
    if (key !== keys[i] || !Object.hasOwn(own, key)) return false;
    i++;
  }
  return i === keys.length;
}

/**
 * The same logger with `fields` on every line, a line's own fields winning (the `service` of an app's
 * lines). Unlike `child`, a line may carry one of these fields itself without writing it twice.
 */
export function withFields(logger: Logger, fields: LogFields): Logger {
  const keys = Object.keys(fields);
  // A line that already leads with these fields (the request line names its service first) is written as it
  // is: the merge would copy it into an object with the same keys, in the same order, with the same values.
  const merged = (own?: LogFields): LogFields =>
    own !== undefined && leadsWith(own, keys) ? own : { ...fields, ...own };
  const out: Logger = {
    get level() {
      return logger.level;
    },
    enabled: (l) => logger.enabled(l),
    error: (msg, own) => logger.error(msg, merged(own)),
    warn: (msg, own) => logger.warn(msg, merged(own)),
    info: (msg, own) => logger.info(msg, merged(own)),
    debug: (msg, own) => logger.debug(msg, merged(own)),
    child: (own) => withFields(logger.child(own), fields),
    sink: (entry) => logger.sink({ ...fields, ...entry }),
    pino: logger.pino,
  };
  return out;
}

function wrap(p: PinoLogger, withStack: boolean): Logger {
  const emit = (l: Exclude<LogLevel, 'silent'>, msg: string, fields?: LogFields) => {
    try {
      p[l](fields ?? {}, msg);
    } catch {
      // Logging never breaks the request that logs.
    }
  };
  const sink = (entry: LogFields) => {
    const { level: l, msg, event, ...rest } = entry;
    const lvl =
      typeof l === 'string' && l !== 'silent' && (LOG_LEVELS as readonly string[]).includes(l)
        ? (l as Exclude<LogLevel, 'silent'>)
        : 'info';
    // The message says what happened: msg, else the event's or the error's name; never a bare "log".
    const named = [msg, event, rest['error']].find((v): v is string => typeof v === 'string' && v !== '');
    const text = named ?? 'event';
    emit(lvl, text, typeof msg === 'string' && event !== undefined ? { event, ...rest } : rest);
  };
  return {
    get level() {
      return p.level as LogLevel;
    },
    enabled: (l) => p.isLevelEnabled(l),
    error: (msg, fields) => emit('error', msg, fields),
    warn: (msg, fields) => emit('warn', msg, fields),
    info: (msg, fields) => emit('info', msg, fields),
    debug: (msg, fields) => emit('debug', msg, fields),
    // pino's `formatters.bindings` does not see a child's bindings: they are cleaned here.
    child: (fields) => wrap(p.child(clean(fields, withStack)), withStack),
    sink,
    pino: p,
  };
}

/**
 * The fields of a line as they may be written: secrets redacted at any depth, errors as
 * `{name, message, code}` (and `stack` at debug), bigints as strings, cycles cut, no `level`/`time`/`msg`.
 * A flat line under harmless names (the request line, most lines) is returned as it is.
 */
function clean(fields: LogFields, withStack: boolean): LogFields {
  return isFlatAndClean(fields) ? fields : (cleanDeep(fields, withStack, new WeakSet(), true) as LogFields);
}

/** The request line's field names (`requestLog`): none is redacted or reserved, so none needs the name rule. */
export const REQUEST_LINE_FIELDS: ReadonlySet<string> = new Set([
  'service',
  'requestId',
  'method',
  'route',
  'status',
  'ms',
  'keyId',
  'error',
  'aborted',
]);

function isFlatAndClean(fields: LogFields): boolean {
  for (const key in fields) {
    if (!Object.hasOwn(fields, key)) continue;
    const value = fields[key];
    const t = typeof value;
    if (value !== null && t !== 'string' && t !== 'number' && t !== 'boolean' && t !== 'undefined') return false;
    if (REQUEST_LINE_FIELDS.has(key)) continue;
    if (redacts(key) || RESERVED.has(key)) return false;
  }
  return true;
}

function cleanDeep(value: unknown, withStack: boolean, seen: WeakSet<object>, top = false): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (typeof value !== 'object' || value === null) return value;
  if (value instanceof Error) {
    const code = (value as { code?: unknown }).code;
    return {
      name: value.name,
      message: value.message,
      ...(code !== undefined ? { code } : {}),
      ...(withStack && value.stack ? { stack: value.stack } : {}),
    };
  }
  if (seen.has(value)) return '[Circular]';
  seen.add(value);
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function') return cleanDeep(toJSON.call(value), withStack, seen);
  if (Array.isArray(value)) return value.map((v) => cleanDeep(v, withStack, seen));
  const out: LogFields = {};
  for (const [k, v] of Object.entries(value)) {
    if (top && RESERVED.has(k)) continue;
    if (v === undefined) continue;
    out[k] = redacts(k) ? REDACTED : cleanDeep(v, withStack, seen);
  }
  return out;
}

/** A client's X-Request-ID is kept when it is 1 to 128 visible ASCII characters (valid in both specs). */
const ACCEPTABLE_ID = /^[\x21-\x7e]{1,128}$/;

/**
 * Sets `X-Request-ID` (and `res.locals.requestId`, unless already set): the client's value when acceptable,
 * else a fresh one. Returns the id sent.
 */
export function assignRequestId(req: Request, res: Response, newId: () => string = randomUUID): string {
  const sent = req.get('x-request-id');
  const id = sent !== undefined && ACCEPTABLE_ID.test(sent) ? sent : newId();
  res.setHeader('X-Request-ID', id);
  if (res.locals.requestId === undefined) res.locals.requestId = id;
  return id;
}

/** The request id of a response (what `X-Request-ID` says, set by `requestLog` or the app). */
export function requestIdOf(res: Response): string | undefined {
  const header = res.getHeader('X-Request-ID');
  if (typeof header === 'string') return header;
  const local = res.locals.requestId as unknown;
  return typeof local === 'string' ? local : undefined;
}

export interface RequestLogOptions {
  logger: Logger;
  /** `vault-api`, `resolver`, …: which service answered. */
  service: string;
  /** The key id of an authenticated request (never the key). Read when the response finishes. */
  getKeyId?: (req: Request) => string | undefined;
  /** The route template (e.g. the OpenAPI route matched); default: Express's matched route. */
  routeOf?: RouteOf;
  /** The stable error code answered, when the answer is an error (e.g. the vault's `errorCodeOf`). */
  getErrorCode?: (req: Request) => string | undefined;
  /** A monotonic clock in milliseconds, for latency (default performance.now). */
  now?: Clock;
  /** Fresh request ids (default randomUUID). */
  newId?: () => string;
}

/**
 * One line per request when its response finishes (or the client goes away first: `aborted: true`):
 * `{time, level, msg: "request", service, requestId, method, route, status, ms, keyId?, error?, aborted?}`.
 * 5xx answers are logged at `error`, everything else at `info`. Sets `X-Request-ID` (the client's, when
 * acceptable, else a fresh one) unless something before it already did; an app's own request-id
 * middleware that runs later may replace it, and the line reports what the client was finally sent.
 */
export function requestLog(options: RequestLogOptions): RequestHandler {
  const { logger, service, getKeyId, routeOf, getErrorCode } = options;
  const now = options.now ?? (() => performance.now());
  const newId = options.newId ?? randomUUID;
  const templateOf = routeTemplates(routeOf);
  return (req, res, next) => {
    const started = now();
    if (!res.hasHeader('X-Request-ID')) assignRequestId(req, res, newId);
    res.once('close', () => {
      const status = res.statusCode;
      const keyId = safeCall(getKeyId, req);
      const error = safeCall(getErrorCode, req);
      const fields: LogFields = {
        service,
        requestId: requestIdOf(res),
        method: req.method,
        route: templateOf(req),
        status,
        ms: Math.round((now() - started) * 1000) / 1000,
      };
      // Set in this order only when present (as the spreads of empty objects did, without allocating them).
      if (keyId) fields.keyId = keyId;
      if (error) fields.error = error;
      if (!res.writableFinished) fields.aborted = true;
      if (status >= 500) logger.error('request', fields);
      else logger.info('request', fields);
    });
    next();
  };
}

function safeCall(fn: ((req: Request) => string | undefined) | undefined, req: Request): string | undefined {
  if (!fn) return undefined;
  try {
    return fn(req);
  } catch {
    return undefined;
  }
}
