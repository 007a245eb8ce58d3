// The Content-Type request validation sees: one per kind of body, so that the validator's per-header cache of
// compiled validators cannot be grown by a client; the client's own header is back afterwards.
import type { NextFunction, Request, Response } from 'express';
import { describe, expect, it } from 'vitest';
import { canonicalContentType, withCanonicalContentType } from './content-type.ts';

describe('canonicalContentType', () => {
  it.each([
    { given: 'application/json', want: 'application/json' },
    { given: 'application/json; charset=utf-8', want: 'application/json' },
    { given: 'Application/JSON ; x=1', want: 'application/json' },
    { given: 'application/json; x=2', want: 'application/json' },
    { given: 'text/plain', want: 'application/x-not-json' },
    { given: 'text/x-123', want: 'application/x-not-json' },
    { given: 'multipart/form-data; boundary=xyz', want: 'application/x-not-json' },
    { given: 'application/json-patch+json', want: 'application/x-not-json' },
    { given: '', want: 'application/x-not-json' },
  ])('$given → $want', ({ given, want }) => {
    expect(canonicalContentType(given)).toBe(want);
  });
});

describe('withCanonicalContentType', () => {
  const req = (type?: string) =>
    ({ headers: type === undefined ? {} : { 'content-type': type } }) as unknown as Request;
  const res = {} as Response;

  it('validates with the canonical type and restores the client header before going on', () => {
    const r = req('application/json; x=7');
    const seen: (string | undefined)[] = [];
    let after: string | undefined;
    withCanonicalContentType((q, _s, next) => {
      seen.push(q.headers['content-type']);
      next();
    })(r, res, (() => {
      after = r.headers['content-type'];
    }) as NextFunction);
    expect(seen).toEqual(['application/json']);
    expect(after).toBe('application/json; x=7');
  });

  it('restores the header when validation fails, by next(err) or by a throw', () => {
    const failing = req('text/x-1');
    let passed: unknown;
    withCanonicalContentType((_q, _s, next) => next(new Error('415')))(failing, res, ((e: unknown) => {
      passed = e;
    }) as NextFunction);
    expect([failing.headers['content-type'], (passed as Error).message]).toEqual(['text/x-1', '415']);

    const throwing = req('text/x-2');
    expect(() =>
      withCanonicalContentType(() => {
        throw new Error('boom');
      })(throwing, res, (() => undefined) as NextFunction),
    ).toThrow('boom');
    expect(throwing.headers['content-type']).toBe('text/x-2');
  });

  it('leaves a request without Content-Type alone', () => {
    const r = req();
    withCanonicalContentType((q, _s, next) => {
      expect(q.headers['content-type']).toBeUndefined();
      next();
    })(r, res, (() => undefined) as NextFunction);
  });
});
