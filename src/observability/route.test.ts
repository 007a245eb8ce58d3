import express from 'express';
import { describe, expect, it } from 'vitest';
import { UNMATCHED_ROUTE, routeTemplate, routeTemplates, toOpenApiPath } from './route.ts';

const req = (o: { route?: string; baseUrl?: string }) =>
  ({ baseUrl: o.baseUrl ?? '', ...(o.route ? { route: { path: o.route } } : {}) }) as unknown as express.Request;

describe('routeTemplates', () => {
  it('answers what routeTemplate answers, for a given template, an Express route and no route', () => {
    const given = (r: express.Request) => (r.baseUrl === '/given' ? '/contracts/vault/:owner' : undefined);
    const cases = [
      req({ baseUrl: '/given' }),
      req({ route: '/files/*rest', baseUrl: '/v1' }),
      req({ route: '/', baseUrl: '' }),
      req({}),
    ];
    const templateOf = routeTemplates(given);
    for (let round = 0; round < 2; round++) {
      expect(cases.map((c) => templateOf(c))).toEqual(cases.map((c) => routeTemplate(c, given)));
    }
    expect(cases.map((c) => templateOf(c))).toEqual([
      '/contracts/vault/{owner}',
      '/v1/files/{rest}',
      '/',
      UNMATCHED_ROUTE,
    ]);
  });

  it('converts an Express path once per path, to the OpenAPI form', () => {
    expect(toOpenApiPath('/a/:b/c/:d_e')).toBe('/a/{b}/c/{d_e}');
    const templateOf = routeTemplates();
    expect(templateOf(req({ route: '/a/:b' }))).toBe('/a/{b}');
    expect(templateOf(req({ route: '/a/:c' }))).toBe('/a/{c}');
    expect(templateOf(req({ route: '/a/:b' }))).toBe('/a/{b}');
  });
});
