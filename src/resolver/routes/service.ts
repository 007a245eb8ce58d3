// GET /, /health, /openapi.json and /docs (spec tag "service"). The UI (src/openapi/docs-ui.ts) reads
// /openapi.json.
import type { RequestHandler } from 'express';
import type { operations } from '../../generated/did-resolver.ts';
import type { OpenApiDocument } from '../../platform/operations.ts';
import { sendJsonText } from '../../platform/json-answer.ts';
import type { OperationHandler } from '../../platform/typed.ts';
import { docsUi } from '../../openapi/docs-ui.ts';
import type { RouteContext } from './shared.ts';
import { RESOLVER_SERVICE } from '../../domain.ts';
import { sendIndex, type IndexOptions } from '../../services/index-page.ts';

type GetOpenApi = operations['getOpenApi'];

export function serviceRoutes(ctx: RouteContext, spec: OpenApiDocument) {
  // `servers` names this service (relative), so Swagger's "Try it out" sends to the origin the page came from
  // whatever --resolver-port says, not to the spec's documented default.
  const served = { ...spec, servers: [{ url: '/', description: 'this service' }] };
  const specJson = JSON.stringify(served);
  const networks = [...ctx.served.values()].map((n) => ({ network: n.name, registryId: n.registryId }));
  const ui = docsUi({ title: spec.info?.title ?? 'did:ledger resolver' });
  // The health answer is checked against getHealth's (src/platform/typed.ts).
  const health: OperationHandler<operations['getHealth']> = (_req, res) => {
    res.json({
      status: 'ok',
      timestamp: new Date(ctx.deps.now()).toISOString(),
      service: RESOLVER_SERVICE,
      node: process.versions.node,
      networks,
    });
  };
  const index: IndexOptions = {
    service: RESOLVER_SERVICE,
    title: spec.info?.title ?? 'did:ledger resolver',
    docs: true,
    ...(ctx.deps.relatedServices ? { related: ctx.deps.relatedServices } : {}),
  };
  const getIndex: OperationHandler<operations['getIndex']> = (req, res) =>
    sendIndex(req, res, index, (body) => res.json(body));
  // The description as loaded, held to getOpenApi's answer, sent as the text it was serialized to once.
  const openapi: OperationHandler<GetOpenApi> = (req, res) => sendJsonText(req, res, served, specJson);
  return {
    index: getIndex,
    health,
    openapi,
    docs: ui.page,
    /** Mounted at /docs: swagger-ui-init.js and the swagger-ui-dist files. */
    docsAssets(): RequestHandler[] {
      return ui.assets;
    },
  };
}
