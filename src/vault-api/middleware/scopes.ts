// Per-operation permissions (vault-api.yaml "Authentication"): `x-required-role: admin` needs an admin key,
// `x-required-scope` needs that scope unless the key carries none (a key with no scopes is unrestricted).
import type { RequestHandler } from 'express';
import { VaultErrors, getAuth, peekAuth } from '../context.ts';
import { operationOf } from '../../platform/app.ts';

/** `x-required-role: admin` → 403 `admin_required`; `x-required-scope` → 403 `insufficient_scope`. */
export function requireScopes(): RequestHandler {
  return (req, _res, next) => {
    const op = operationOf(req);
    if (!op || op.public) return next();
    // Keyless where the key is optional: nothing to check; the route decides what a keyless caller may do.
    if (op.keyOptional && !peekAuth(req)) return next();
    const auth = getAuth(req);
    if (op.role === 'admin' && auth.role !== 'admin')
      throw VaultErrors.adminRequired('this operation needs an admin key');
    // A key with no scopes is unrestricted (vault-api.yaml "Authentication").
    if (op.scope && auth.scopes.length > 0 && !auth.scopes.includes(op.scope)) {
      throw VaultErrors.insufficientScope(`this operation needs the scope ${op.scope}`);
    }
    next();
  };
}
