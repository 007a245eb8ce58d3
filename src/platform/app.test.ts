// The platform's bootstrap (app.ts): the route table must cover the description exactly, and each
// operation's handler is reached by its path and method alone.
import type { RequestHandler } from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { request, serve, type Served } from '../../test-support/observability.ts';
import { testServiceApp } from '../../test-support/platform-app.ts';
import { checkRouteTable, operationOf } from './app.ts';
import { buildModel, type Operation } from './operations.ts';
import type { OpenApiDocument } from './operations.ts';
import { resolverModel } from './resolver-model.ts';
import { vaultModel } from './vault-model.ts';

/** A description of three operations on two paths. */
const SPEC: OpenApiDocument = {
  openapi: '3.1.0',
  info: { title: 'two paths', version: '1' },
  paths: {
    '/things': {
      get: { operationId: 'listThings', responses: { '200': { description: 'ok' } } },
      post: { operationId: 'addThing', responses: { '200': { description: 'ok' } } },
    },
    '/things/{id}': {
      get: {
        operationId: 'getThing',
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: { '200': { description: 'ok' } },
      },
    },
  },
  components: { headers: { 'X-Request-ID': { schema: { type: 'string', maxLength: 64 } } } },
};
const MODEL = buildModel(SPEC);

const answer =
  (name: string): RequestHandler =>
  (req, res) =>
    void res.json({ name, params: req.params });

function app(
  handlers: Record<string, RequestHandler>,
  layers: (operation: Operation, validate: RequestHandler[]) => RequestHandler[] = (_op, validate) => validate,
) {
  return testServiceApp({ model: MODEL, handlers, layers, validator: { allErrors: false, validateResponses: false } });
}

let served: Served | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

describe('the route table', () => {
  it('lists the operations of a description by operationId', () => {
    // Most specific path first (the order routes are tried in), then the path's methods as the description lists them.
    expect([...MODEL.operations.values()].map((o) => [o.operationId, o.template, o.method])).toEqual([
      ['getThing', '/things/{id}', 'get'],
      ['listThings', '/things', 'get'],
      ['addThing', '/things', 'post'],
    ]);
  });

  it('refuses at start-up an operation without a handler', () => {
    expect(() => app({ listThings: answer('list'), addThing: answer('add') })).toThrow(
      'the route table does not match two paths: operations without a handler: getThing',
    );
  });

  it('refuses at start-up a handler of no operation', () => {
    const all = { listThings: answer('list'), addThing: answer('add'), getThing: answer('get') };
    expect(() => app({ ...all, removeThing: answer('remove') })).toThrow(
      'the route table does not match two paths: handlers of no operation in the description: removeThing',
    );
  });

  it('refuses an operation said to be answered by a layer that the description lacks', () => {
    expect(() => checkRouteTable(MODEL, { listThings: 1, addThing: 1, getThing: 1 }, ['preflightThings'])).toThrow(
      'handlers of no operation in the description: preflightThings',
    );
  });

  it('the apps leave no operation of their description unserved (the platform serves /metrics and /ready)', () => {
    expect(() => checkRouteTable(resolverModel, {})).toThrow(/resolveDid/);
    expect(() => checkRouteTable(resolverModel, {})).not.toThrow(/getMetrics|getReadiness/);
    expect(() => checkRouteTable(vaultModel, {})).toThrow(/getConfig/);
  });

  it('reaches each handler by its path and method; an undeclared method is 405, OPTIONS 204, both with Allow', async () => {
    served = await serve(app({ listThings: answer('list'), addThing: answer('add'), getThing: answer('get') }));
    const at = async (method: string, path: string) => {
      const r = await request(served!.port, { method, path });
      return [r.status, r.body];
    };
    expect(await at('GET', '/things')).toEqual([200, '{"name":"list","params":{}}']);
    expect(await at('POST', '/things')).toEqual([200, '{"name":"add","params":{}}']);
    expect(await at('GET', '/things/a%20b')).toEqual([200, '{"name":"get","params":{"id":"a b"}}']);
    expect((await at('DELETE', '/things'))[0]).toBe(405);
    const options = await request(served.port, { method: 'OPTIONS', path: '/things/1' });
    expect([options.status, options.headers['allow'], options.body]).toEqual([204, 'GET, HEAD, OPTIONS', '']);
    expect((await at('GET', '/nothing'))[0]).toBe(404);
    // HEAD on a GET operation is that GET, without a body.
    expect(await at('HEAD', '/things')).toEqual([200, '']);
  });

  it("runs each operation's own layers, after route matching, for its method only", async () => {
    const asked: string[] = [];
    const tag =
      (name: string): RequestHandler =>
      (req, res, next) => {
        // After route matching: the operation is on the request.
        const matched = operationOf(req)?.operationId;
        res.setHeader('x-layers', [res.getHeader('x-layers'), `${name}@${matched}`].filter(Boolean).join(' '));
        next();
      };
    served = await serve(
      app({ listThings: answer('list'), addThing: answer('add'), getThing: answer('get') }, (op) => {
        asked.push(`${op.method} ${op.template} ${op.operationId}`);
        return op.operationId === 'getThing' ? [] : [tag(op.operationId), tag('second')];
      }),
    );
    expect(asked.sort()).toEqual(['get /things listThings', 'get /things/{id} getThing', 'post /things addThing']);
    const layersOf = async (method: string, path: string) =>
      (await request(served!.port, { method, path })).headers['x-layers'];
    expect(await layersOf('GET', '/things')).toBe('listThings@listThings second@listThings');
    expect(await layersOf('HEAD', '/things')).toBe('listThings@listThings second@listThings');
    expect(await layersOf('POST', '/things')).toBe('addThing@addThing second@addThing');
    expect(await layersOf('GET', '/things/1')).toBeUndefined();
    expect(await layersOf('DELETE', '/things')).toBeUndefined();
  });
});
