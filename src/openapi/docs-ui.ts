// The /docs page: swagger-ui-express's, its assets served from this process. The description is loaded by URL,
// never inlined: swagger-ui-express inlines with String.replace, where the `$\`` of `^G[A-Z2-7]{55}$` is a
// replacement pattern and breaks the script.
import type { RequestHandler } from 'express';
import swaggerUi from 'swagger-ui-express';

export interface DocsUi {
  /** `/docs/` redirects to `/docs`, so every relative link has one base. */
  page: RequestHandler;
  /** Mounted at /docs. */
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
