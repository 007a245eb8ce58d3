// API keys (vault-api.yaml "Authentication"): every operation except the public ones (`security: []`:
// /health, /config, /openapi.json, /docs, /auth/*) needs a key of this network in X-SVC-Key, x-api-key or
// `Authorization: Bearer`.
import type { Request, RequestHandler } from 'express';
import { VaultErrors, setAuth, type AuthContext, type VaultAppDeps } from '../context.ts';
import type { ApiKeyRecord } from '../../stores/index.ts';
import { operationOf } from '../../platform/app.ts';

/** Said of an unknown, revoked or other-network key alike (they read the same, so none is revealed). */
export const UNKNOWN_KEY = 'unknown API key: no active key of this network matches it';

/** The key a request carries, in the order of precedence of the spec: X-SVC-Key, x-api-key, Bearer. */
export function presentedKey(req: Request): string | undefined {
  for (const header of ['x-svc-key', 'x-api-key']) {
    const v = req.get(header)?.trim();
    if (v) return v;
  }
  const m = /^Bearer\s+(\S+)\s*$/i.exec(req.get('authorization') ?? '');
  return m?.[1];
}

const KEY_RE = /^[0-9a-fA-F]{64}$/;

export function authContextOf(record: ApiKeyRecord): AuthContext {
  return { keyId: record.keyId, wallet: record.walletAddress, role: record.role, scopes: [...record.scopes] };
}

/** Resolves the key of every keyed operation and attaches the caller (`setAuth`). */
export function authenticate(deps: VaultAppDeps): RequestHandler {
  return async (req, _res, next) => {
    const op = operationOf(req);
    if (!op || op.public) return next();
    const key = presentedKey(req);
    // A keyless call of an operation whose key is optional goes on without a caller (rate-limited per IP).
    if (!key && op.keyOptional) return next();
    if (!key) throw VaultErrors.missingApiKey('send the API key in X-SVC-Key, x-api-key or Authorization: Bearer');
    const found = KEY_RE.test(key) ? await deps.stores.keys.lookup(key) : undefined;
    // Nothing carries over between networks: a testnet key does not open mainnet, expired or not. Unknown
    // and revoked keys read alike.
    if (!found || found.record.network !== deps.profile.network || found.state === 'revoked') {
      throw VaultErrors.invalidApiKey(UNKNOWN_KEY);
    }
    if (found.state === 'expired') {
      throw VaultErrors.apiKeyExpired(
        `the API key expired on ${found.record.expiresAt}; prove the wallet again to get a new one`,
      );
    }
    setAuth(req, authContextOf(found.record));
    next();
  };
}
