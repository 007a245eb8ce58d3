// Every /contracts route of vault-api.yaml: writes (prepare | submit), the issuer registry, reads; and
// POST /credentials/verify, which composes those reads.
// Mounted by the app after authentication, scopes, rate limits and idempotency, at the root path.
import express, { type Router } from 'express';
import type { VaultAppDeps } from '../context.ts';
import { registerIssuerRegistryRoutes } from './issuer-registry.ts';
import { registerReadRoutes } from './reads.ts';
import { registerVerifyRoutes } from './verify.ts';
import { registerWriteRoutes } from './writes.ts';

export function createContractRoutes(deps: VaultAppDeps): Router {
  const router = express.Router();
  registerWriteRoutes(router, deps);
  registerIssuerRegistryRoutes(router, deps);
  registerReadRoutes(router, deps);
  registerVerifyRoutes(router, deps);
  return router;
}
