// GET /health, /openapi.json and /docs (spec tag "service"). The UI is swagger-ui-express's, served from
// this process (no CDN), reading ./openapi.json.
import express, { type Request, type Response } from 'express';
import swaggerUi from 'swagger-ui-express';
import type { RouteContext } from './shared.ts';

export function serviceRoutes(ctx: RouteContext, spec: { info?: { title?: string } }) {
  const specJson = JSON.stringify(spec);
  const networks = [...ctx.served.values()].map((n) => ({ network: n.name, registryId: n.registryId }));
  const uiOptions = { swaggerUrl: 'openapi.json', customSiteTitle: spec.info?.title ?? 'did:ledger resolver' };
  // The page lives at /docs (no trailing slash) and its assets under /docs/: make its relative links say so.
  const page = swaggerUi.generateHTML(undefined, uiOptions).replace(/(href|src)="\.\//g, '$1="docs/');
  return {
    health(_req: Request, res: Response): void {
      res.json({ status: 'ok', timestamp: new Date(ctx.deps.now()).toISOString(), service: 'did-resolver', node: process.versions.node, networks });
    },
    openapi(_req: Request, res: Response): void {
      res.type('application/json').send(specJson);
    },
    docs(_req: Request, res: Response): void {
      res.type('html').send(page);
    },
    /** Mounted at /docs: swagger-ui-init.js and the swagger-ui-dist files. */
    docsAssets(): express.RequestHandler[] {
      return swaggerUi.serveFiles(undefined, uiOptions) as express.RequestHandler[];
    },
  };
}
