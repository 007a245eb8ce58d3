// The public routes (vault-api.yaml tag Public): liveness, the network configuration, the description at
// /openapi.json, and the interactive documentation (Swagger UI, served from this process; testnet only — on
// mainnet every /docs route is 404).
import express, { type Router } from 'express';
import { docsUi } from '../../openapi/docs-ui.ts';
import { publicUrl } from '../../config/redact.ts';
import type { operations } from '../../generated/vault-api.ts';
import { sendJsonText } from '../../platform/json-answer.ts';
import type { RouteTable } from '../../platform/app.ts';
import type { OkBody, OperationHandler } from '../../platform/typed.ts';
import { VaultErrors, type VaultAppDeps } from '../context.ts';
import type { OpenApiDocument } from '../../platform/operations.ts';
import { vaultServiceName } from '../../domain.ts';
import { sendIndex, type IndexOptions } from '../../services/index-page.ts';

/** The handlers of GET /, GET /health, GET /config and GET /openapi.json, by operationId. */
export function publicRoutes(deps: VaultAppDeps, doc: OpenApiDocument): RouteTable<operations> {
  const p = deps.profile;
  // `servers` names this service, so the UI (and a client generator) takes this origin as the base.
  const servedDoc = { ...doc, servers: [{ url: '/', description: `this service (${p.network})` }] };
  const served = JSON.stringify(servedDoc);

  const service = vaultServiceName(p.network);
  const health: OperationHandler<operations['getHealth']> = (_req, res) => {
    res.json({
      status: 'ok',
      timestamp: new Date(deps.now()).toISOString(),
      service,
      node: process.versions.node,
    });
  };

  // The configured public URL, else the one in use without userinfo and query, where a password or a provider's API
  // key lives (spec Config.rpcUrl).
  const rpcUrl = p.publicRpcUrl ?? publicUrl(p.rpcUrl);
  const viaResJson = deps.validateResponses === true;
  // The answer changes only with the protocol version: made again, and serialized once, when that moves.
  type Config = OkBody<operations['getConfig']>;
  let answer: { protocolVersion: number; body: Config; text: string } | undefined;
  const config: OperationHandler<operations['getConfig']> = (req, res) => {
    // Read at start (services.ts refuses to start without it) and refreshed by every readiness check: an app
    // wired without it is a fault of this process (500, logged), never a Config without the field.
    const protocolVersion = deps.chain.client.protocolVersion;
    if (protocolVersion === undefined)
      throw new Error('GET /config: the chain client has not read the protocol version');
    if (answer?.protocolVersion !== protocolVersion) {
      // Typed here, where it is written: a field the spec's Config lacks does not compile.
      const body: Config = {
        rpcUrl,
        networkPassphrase: p.networkPassphrase,
        networkType: p.network,
        protocolVersion,
        factoryContractId: p.factoryId,
        vaultWasmHash: p.vaultWasmHash,
        didStellarRegistryId: p.registryId,
        // Back-compat alias of factoryContractId (vault-api.yaml Config.svcContractId).
        svcContractId: p.factoryId,
      };
      answer = { protocolVersion, body, text: JSON.stringify(body) };
    }
    sendJsonText(req, res, answer.body, answer.text, { viaResJson });
  };

  // The description, held to getOpenApi's answer, sent as the text it was serialized to once.
  const getOpenApi: OperationHandler<operations['getOpenApi']> = (req, res) =>
    sendJsonText(req, res, servedDoc, served);

  const index: IndexOptions = {
    service,
    title: doc.info?.title ?? 'Credential Vault API',
    docs: p.network !== 'mainnet',
    ...(deps.relatedServices ? { related: deps.relatedServices } : {}),
  };
  const getIndex: OperationHandler<operations['getIndex']> = (req, res) =>
    sendIndex(req, res, index, (body) => res.json(body));

  return { getIndex, getHealth: health, getConfig: config, getOpenApi };
}

/**
 * /docs: the Swagger UI page and its assets, reading /openapi.json. Mounted before route matching, since the
 * assets are not operations of the spec.
 */
export function createDocsRoutes(deps: VaultAppDeps): Router {
  const router = express.Router();
  if (deps.profile.network === 'mainnet') {
    router.use((_req, _res, next) => next(VaultErrors.notFound('not found')));
    return router;
  }
  const ui = docsUi({ title: 'Credential Vault API' });
  // `/docs` itself is a declared path: a method other than GET and HEAD leaves for its route (405, OPTIONS
  // 204), like on every declared path (docs/vault-api.md).
  const page = (req: express.Request) => req.path === '/' && req.method !== 'GET' && req.method !== 'HEAD';
  router.use((req, _res, next) => next(page(req) ? 'router' : undefined));
  router.get('/', ui.page);
  router.use(ui.assets);
  router.use((_req, _res, next) => next(VaultErrors.notFound('not found')));
  return router;
}
