// GET /health, /openapi.json and /docs (spec tag "service"). The UI (src/openapi/docs-ui.ts) reads
// /openapi.json.
import type { RequestHandler } from 'express';
import type { operations } from '../../generated/did-resolver.ts';
import type { OpenApiDocument } from '../../platform/spec.ts';
import { jsonText, sendJsonText, type OkBody, type OperationHandler } from '../../platform/typed.ts';
import { docsUi } from '../../openapi/docs-ui.ts';
import type { RouteContext } from './shared.ts';

type GetOpenApi = operations['getOpenApi'];

export function serviceRoutes(ctx: RouteContext, spec: OpenApiDocument) {
  const specJson = jsonText<OkBody<GetOpenApi>>(spec);
  const networks = [...ctx.served.values()].map((n) => ({ network: n.name, registryId: n.registryId }));
  const ui = docsUi({ title: spec.info?.title ?? 'did:ledger resolver' });
  // The health answer is checked against getHealth's (src/platform/typed.ts).
  const health: OperationHandler<operations['getHealth']> = (_req, res) => {
    res.json({
      status: 'ok',
      timestamp: new Date(ctx.deps.now()).toISOString(),
      service: 'did-resolver',
      node: process.versions.node,
      networks,
    });
  };
  // The description as loaded, typed by getOpenApi's answer.
  const openapi: OperationHandler<GetOpenApi> = (_req, res) => sendJsonText(res, specJson);
  return {
    health,
    openapi,
    docs: ui.page,
    /** Mounted at /docs: swagger-ui-init.js and the swagger-ui-dist files. */
    docsAssets(): RequestHandler[] {
      return ui.assets;
    },
  };
}
