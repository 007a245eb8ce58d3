// The Content-Type request validation sees: one per kind of body, so that the validator's per-header cache of
// compiled validators cannot be grown by a client; the client's own header is back afterwards.
import { describe, expect, it } from 'vitest';
import { canonicalContentType } from './validator.ts';

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
