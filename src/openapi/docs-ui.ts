// The /docs page of both services: swagger-ui-express's page and assets (swagger-ui-dist, served from this
// process, never a CDN), loading the description by URL from the service's /openapi.json. The description is
// never inlined: swagger-ui-express inlines it with String.replace, where the `$\`` of a pattern such as
// `^G[A-Z2-7]{55}$` is a replacement pattern and breaks the script (a blank page).
import type { RequestHandler } from 'express';
import swaggerUi from 'swagger-ui-express';

export interface DocsUi {
  /** GET /docs: the page. `/docs/` redirects to `/docs`, so every relative link has one base. */
  page: RequestHandler;
  /** Mounted at /docs: swagger-ui-init.js and the swagger-ui-dist files. */
  assets: RequestHandler[];
}

export function docsUi(options: { title: string }): DocsUi {
  const uiOptions = {
    customSiteTitle: options.title,
    // Relative to the page at /docs: /openapi.json, and /api/openapi.json under a legacy or proxy prefix.
    swaggerUrl: 'openapi.json',
    swaggerOptions: { tryItOutEnabled: false },
  };
  // The page's asset links are relative (./swagger-ui.css); from /docs they must name the docs folder.
  const html = swaggerUi.generateHTML(undefined, uiOptions).replace(/(href|src)="\.\//g, '$1="docs/');
  return {
    page(req, res) {
      const path = req.originalUrl.split('?')[0]!;
      if (path.endsWith('/')) {
        // From …/docs/ the links would name …/docs/docs/…; `../docs` keeps any prefix in front.
        res.redirect(301, '../docs');
        return;
      }
      res.type('html').send(html);
    },
    assets: swaggerUi.serveFiles(undefined, uiOptions) as unknown as RequestHandler[],
  };
}
