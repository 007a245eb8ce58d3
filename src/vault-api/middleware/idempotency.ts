// Idempotency-Key on the contract write routes (vault-api.yaml "Idempotency"). Keys are
// scoped per API key; the request is identified by method, path and the canonical JSON of its body. The
// first 2xx answer is stored with the headers that describe it (REPLAYED_HEADERS) and replayed with
// `Idempotency-Replayed: true`; an error answer is not stored (the key is released, so a corrected retry
// may use it); a different request under the same key is 422 `idempotency_key_reused`; the same request
// while the first still runs is 409 `idempotency_in_progress`. The store's begin() lets exactly one of two
// concurrent requests run.
import { createHash } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import { VaultErrors, getAuth, type VaultAppDeps } from '../context.ts';
import { canonicalize } from '../../did/jcs.ts';
import { IDEMPOTENCY_KEY_MAX, type StoredResponse } from '../../stores/index.ts';
import { operationOf } from '../../platform/app.ts';
import { requestIdOf } from '../../platform/request-id.ts';

type Settle = (status: number, body: unknown) => Promise<void>;

/**
 * The headers of a first answer that its replays repeat: those that describe the answer (its type, where
 * it points, the rate-limit budget it reported). Per-request headers (X-Request-ID, Set-Cookie, CORS,
 * Deprecation) are never stored: a replay gets its own.
 */
export const REPLAYED_HEADERS: readonly string[] = [
  'content-type',
  'location',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-writeratelimit-limit',
  'x-writeratelimit-remaining',
];

/** What `res.json` sends as its type when the handler set none. */
const JSON_TYPE = 'application/json; charset=utf-8';

function storedHeaders(res: Response): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of REPLAYED_HEADERS) {
    const value = res.getHeader(name);
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  headers['content-type'] ??= JSON_TYPE;
  return headers;
}

/** The pending first execution of a request, settled when its answer is sent. */
const pending = new WeakMap<Response, Settle>();

/**
 * Wraps `res.json` so an answer is stored before it is sent. Mounted before the validator's response
 * validation, so the validator sees the answer first, then the store, then the client: a retry that
 * arrives right after the answer finds the stored response, never a half-finished record.
 */
export const captureAnswers: RequestHandler = (_req, res, next) => {
  res.json = capturingJson(res, res.json);
  next();
};

/** `res.json` that hands the answer to a pending Idempotency-Key record first (its closure holds only
 *  `res` and the original `json`). */
function capturingJson(res: Response, json: Response['json']): Response['json'] {
  return (body: unknown) => {
    const settle = pending.get(res);
    if (!settle) return json.call(res, body);
    pending.delete(res);
    void settle(res.statusCode, body)
      .catch(() => undefined)
      .then(() => json.call(res, body));
    return res;
  };
}

/** SHA-256 of what makes two requests the same request. */
export function requestHash(req: Request): string {
  const path = req.originalUrl.split('?')[0] ?? req.path;
  return createHash('sha256')
    .update(`${req.method}\n${path}\n${canonicalize(req.body ?? null)}`)
    .digest('hex');
}

export function idempotency(deps: VaultAppDeps): RequestHandler {
  const store = deps.stores.idempotency;
  return async (req, res, next) => {
    const op = operationOf(req);
    const key = req.get('idempotency-key');
    if (!op?.idempotent || key === undefined) return next();
    if (key.length < 1 || key.length > IDEMPOTENCY_KEY_MAX) {
      throw VaultErrors.invalidRequest(`Idempotency-Key must be 1 to ${IDEMPOTENCY_KEY_MAX} characters`);
    }
    const scope = getAuth(req).keyId;
    const begun = await store.begin({ scope, key, requestHash: requestHash(req), now: deps.now() });
    switch (begun.state) {
      case 'replay': {
        const stored = begun.response;
        res.status(stored.status);
        // Only the listed names, whatever a record holds (records written before headers were kept have none).
        for (const [name, value] of Object.entries(stored.headers)) {
          if (REPLAYED_HEADERS.includes(name.toLowerCase())) res.set(name, value);
        }
        res.set('Idempotency-Replayed', 'true');
        res.json(stored.body);
        return;
      }
      case 'mismatch':
        throw VaultErrors.idempotencyKeyReused('this Idempotency-Key was used with a different request body');
      case 'in_progress':
        throw VaultErrors.idempotencyInProgress('a request with this Idempotency-Key is still running; retry later');
      case 'started':
        break;
    }

    const { token } = begun;
    const release = () =>
      store.release(scope, key, token).catch((err: unknown) => {
        // The lease runs out by itself (IDEMPOTENCY_LEASE_MS); a retry before then gets 409.
        const requestId = requestIdOf(res);
        const error = 'idempotency_release_failed';
        deps.log?.({ level: 'warn', msg: 'idempotency record not released', requestId, error, detail: String(err) });
      });
    pending.set(res, async (status, body) => {
      if (status < 200 || status >= 300) return release();
      const response: StoredResponse = { status, headers: storedHeaders(res), body };
      try {
        await store.complete(scope, key, token, response);
      } catch (err) {
        // The work is done (a transaction may be on-chain): the client still gets its answer.
        const requestId = requestIdOf(res);
        const error = 'idempotency_complete_failed';
        deps.log?.({ level: 'warn', msg: 'idempotency record not completed', requestId, error, detail: String(err) });
      }
    });
    // An answer not sent through res.json (or a connection cut before it) never stores anything.
    res.once('close', () => {
      if (pending.delete(res)) void release();
    });
    next();
  };
}
