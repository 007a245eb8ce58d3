// Every /contracts operation of vault-api.yaml: writes (prepare | submit), the issuer registry, reads; and
// the verification operations, which compose those reads. Their handlers run at the end of their
// operation's chain, after authentication, scopes, rate limits and idempotency.
import type { operations } from '../../generated/vault-api.ts';
import type { RouteTable } from '../../platform/app.ts';
import type { VaultAppDeps } from '../context.ts';
import { issuerRegistryRoutes } from './issuer-registry.ts';
import { readRoutes } from './reads.ts';
import { verifyRoutes } from './verify.ts';
import { writeRoutes } from './writes.ts';

export function contractRoutes(deps: VaultAppDeps): RouteTable<operations> {
  return { ...writeRoutes(deps), ...issuerRegistryRoutes(deps), ...readRoutes(deps), ...verifyRoutes(deps) };
}
