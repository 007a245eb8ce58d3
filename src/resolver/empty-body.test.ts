// A POST without a body (plain, or claiming a Content-Encoding) is 400 invalid_request, not a 500 from a
// handler reading an undefined body (found by property-tests/http/bad-input.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../test-support/resolver.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

describe('POST without a body', () => {
  it.each([
    { path: '/v1/dids/stellar', headers: { 'content-type': 'application/json' } },
    { path: '/v1/dids/stellar', headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' } },
    { path: '/v1/dids/stellar/submit', headers: { 'content-type': 'application/json' } },
    { path: '/v1/proof/verify', headers: {} },
  ])('$path $headers → 400 invalid_request', async ({ path, headers }) => {
    const res = await fetch(`${h.url}${path}`, {
      method: 'POST',
      headers: headers as Record<string, string>,
      body: '',
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ code: 'invalid_request', message: 'the request needs a JSON body' });
  });
});
