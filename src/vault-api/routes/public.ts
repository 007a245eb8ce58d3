// The public routes (vault-api.yaml tag Public): liveness, the network configuration, and the interactive
// documentation (Swagger UI, served from this process; testnet only — on mainnet every /docs route is 404).
import express, { type Router } from 'express';
import swaggerUi from 'swagger-ui-express';
import { ApiError, type VaultAppDeps } from '../context.ts';
import type { OpenApiDocument } from '../middleware/openapi.ts';

export const SERVICE_NAME = 'credential-vault';

/** GET /health and GET /config. */
export function createPublicRoutes(deps: VaultAppDeps): Router {
  const router = express.Router();
  const p = deps.profile;

  router.get('/health', (_req, res) => {
    res.json({ status: 'ok', timestamp: new Date(deps.now()).toISOString(), service: SERVICE_NAME });
  });

  router.get('/config', (_req, res) => {
    res.json({
      rpcUrl: p.rpcUrl,
      networkPassphrase: p.networkPassphrase,
      networkType: p.network,
      // read at start (services.ts refuses an older protocol) and refreshed by every readiness check
      protocolVersion: deps.chain.client.protocolVersion,
      factoryContractId: p.factoryId,
      vaultWasmHash: p.vaultWasmHash,
      didStellarRegistryId: p.registryId,
      // Back-compat alias of factoryContractId (credential-vault-api.md "Versioning" 4).
      svcContractId: p.factoryId,
    });
  });

  return router;
}

/**
 * /docs: the Swagger UI page, its assets (from swagger-ui-dist, never a CDN) and the description itself at
 * /docs/openapi.json. Mounted before route matching, since the assets are not operations of the spec.
 */
export function createDocsRoutes(deps: VaultAppDeps, doc: OpenApiDocument): Router {
  const router = express.Router();
  if (deps.profile.network === 'mainnet') {
    router.use((_req, _res, next) => next(new ApiError(404, 'not_found', 'not found')));
    return router;
  }
  const served = { ...doc, servers: [{ url: '/', description: `this service (${deps.profile.network})` }] };
  const options = { customSiteTitle: 'Credential Vault API', swaggerOptions: { tryItOutEnabled: false } };
  const page = swaggerUi.generateHTML(served, options);
  // The page's asset links are relative (./swagger-ui.css): from /docs they must name the docs folder.
  const pageWithoutSlash = page.replace(/(href|src)="\.\//g, '$1="./docs/');

  router.get('/openapi.json', (_req, res) => {
    res.json(served);
  });
  router.get('/', (req, res) => {
    res.type('html').send(req.originalUrl.split('?')[0]!.endsWith('/') ? page : pageWithoutSlash);
  });
  router.use(swaggerUi.serveFiles(served, options));
  router.use((_req, _res, next) => next(new ApiError(404, 'not_found', 'not found')));
  return router;
}
