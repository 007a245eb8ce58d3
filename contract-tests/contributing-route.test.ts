// CONTRIBUTING.md "Add a route", followed in miniature: a description with one new operation (1. Spec), the types
// `npm run generate` writes for it (2. Types), its handler typed from the operation in a route table, and the
// platform's bootstrap with the vault API's error envelope (3. Handler). Then over HTTP: the handler's answer, the
// spec's 400 for a bad query, 405 with `Allow` for a method the path lacks, and no start without the handler.
// That the recipe's names and code are the code's own: contract-tests/contributing.test.ts.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request, serve, type Served } from '../test-support/observability.ts';
import { createMetrics } from '../src/observability/index.ts';
import { createServiceApp, type RouteTable } from '../src/platform/app.ts';
import { errorHandler } from '../src/platform/errors.ts';
import { buildModel, type OpenApiDocument } from '../src/platform/operations.ts';
import type { OperationHandler } from '../src/platform/typed.ts';
import type { VaultErrorCode } from '../src/vault-api/context.ts';
import { notFoundError, VAULT_FAILURE_CODES } from '../src/vault-api/middleware/errors.ts';

const VAULT = `C${'A'.repeat(55)}`;
/** The spec's example of its 400. */
const BAD_QUERY = { error: 'invalid_request', message: 'request validation failed: /query/vault …' };

// 1. Spec: the operation, its bounded query parameter, and every answer with its example.
const SPEC: OpenApiDocument = {
  openapi: '3.1.0',
  info: { title: 'widgets', version: '1' },
  paths: {
    '/widgets/count': {
      get: {
        operationId: 'getWidgetCount',
        tags: ['Reads'],
        security: [],
        parameters: [
          {
            name: 'vault',
            in: 'query',
            required: true,
            schema: { type: 'string', pattern: '^C[A-Z2-7]{55}$', maxLength: 56 },
          },
        ],
        responses: {
          '200': {
            description: 'The number of widgets in the vault.',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  additionalProperties: false,
                  required: ['count'],
                  properties: { count: { type: 'integer', minimum: 0 } },
                },
                example: { count: 3 },
              },
            },
          },
          '400': {
            description: 'A query that fails its schema.',
            content: {
              'application/json': {
                schema: { $ref: '#/components/schemas/ErrorBody' },
                example: BAD_QUERY,
              },
            },
          },
        },
      },
    },
  },
  components: {
    schemas: {
      ErrorBody: {
        type: 'object',
        additionalProperties: false,
        required: ['error', 'message'],
        properties: { error: { type: 'string', maxLength: 64 }, message: { type: 'string', maxLength: 1000 } },
      },
    },
    headers: { 'X-Request-ID': { schema: { type: 'string', maxLength: 64 } } },
  },
};

// 2. Types: what openapi-typescript writes for SPEC (`npm run generate`), copied here; the first test holds them equal.
interface operations {
  getWidgetCount: {
    parameters: {
      query: {
        vault: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            count: number;
          };
        };
      };
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
    };
  };
}
interface components {
  schemas: {
    ErrorBody: {
      error: string;
      message: string;
    };
  };
}

// 3. Handler: one entry of the route table, keyed by the operationId, typed from its operation.
const counts = new Map([[VAULT, 3]]);
const getWidgetCount: OperationHandler<operations['getWidgetCount']> = (req, res) => {
  res.json({ count: counts.get(req.query.vault) ?? 0 });
};
const widgetRoutes = (): RouteTable<operations> => ({ getWidgetCount });

function widgetApp(handlers: RouteTable<operations>) {
  return createServiceApp<operations>({
    model: buildModel(SPEC),
    validator: { allErrors: true, validateResponses: true },
    headEnvelope: (error, message) => ({ error, message }),
    metrics: { metrics: createMetrics({ service: 'widgets' }), service: 'widgets' },
    ready: { checks: [] },
    layers: (_operation, validate) => validate,
    handlers,
    notFound: notFoundError,
    errorHandler: errorHandler<VaultErrorCode>({
      codes: VAULT_FAILURE_CODES,
      body: ({ code, message }) => ({ error: code, message }),
    }),
  });
}

/** A type's text without comments, quotes' kind, `export` or whitespace. */
const normalized = (ts: string) =>
  ts
    .replace(/\/\*\*[\s\S]*?\*\//g, '')
    .replace(/"/g, "'")
    .replace(/\bexport /g, '')
    .replace(/\s+/g, '');
/** The text of `interface name { … }` in TypeScript source (up to its closing brace at the line's start). */
const interfaceText = (source: string, name: string) =>
  /^(?:export )?interface \w+ \{[\s\S]*?^\}/m.exec(
    source.slice(source.search(new RegExp(`^(?:export )?interface ${name} \\{`, 'm'))),
  )?.[0];

let served: Served;
beforeAll(async () => {
  served = await serve(widgetApp(widgetRoutes()));
});
afterAll(async () => {
  await served?.close();
});

const get = async (method: string, path: string) => {
  const r = await request(served.port, { method, path });
  return { status: r.status, allow: r.headers['allow'], body: r.body ? JSON.parse(r.body) : undefined };
};

describe('CONTRIBUTING.md "Add a route", in miniature', () => {
  it('2. the types used here are the ones npm run generate writes for the spec', async () => {
    const generated = astToString(await openapiTS(structuredClone(SPEC) as never));
    const here = readFileSync(fileURLToPath(import.meta.url), 'utf8');
    for (const name of ['operations', 'components']) {
      const mine = interfaceText(here, name);
      expect(mine, name).toBeDefined();
      // components: the generated interface also declares its empty responses, parameters, …
      expect(normalized(generated)).toContain(normalized(mine!).replace(/\}$/, ''));
    }
  });

  it("3. the route table's handler answers its path and method", async () => {
    expect(await get('GET', `/widgets/count?vault=${VAULT}`)).toEqual({ status: 200, body: { count: 3 } });
    expect(await get('GET', `/widgets/count?vault=C${'B'.repeat(55)}`)).toEqual({ status: 200, body: { count: 0 } });
  });

  it("a query that fails the spec is the spec's 400, before the handler runs", async () => {
    for (const path of ['/widgets/count', '/widgets/count?vault=nope', `/widgets/count?vault=${VAULT}&extra=1`]) {
      const r = await get('GET', path);
      expect([r.status, r.body.error], path).toEqual([400, BAD_QUERY.error]);
      expect(Object.keys(r.body).sort()).toEqual(['error', 'message']);
    }
  });

  it('a method the path does not declare is 405 with Allow', async () => {
    const r = await get('POST', `/widgets/count?vault=${VAULT}`);
    expect([r.status, r.body.error, r.allow]).toEqual([405, 'method_not_allowed', 'GET, HEAD']);
  });

  it('the app does not start while the table lacks the handler', () => {
    expect(() => widgetApp({})).toThrow(
      'the route table does not match widgets: operations without a handler: getWidgetCount',
    );
  });

  it('the handler type refuses what the spec lacks (npm run typecheck)', () => {
    const wrong: OperationHandler<operations['getWidgetCount']> = (req, res) => {
      // @ts-expect-error the operation's query has no `owner`
      void req.query.owner;
      // @ts-expect-error the operation's answer has no `total`
      res.json({ count: 1, total: 1 });
    };
    expect(typeof wrong).toBe('function');
  });
});
