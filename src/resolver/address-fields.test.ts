// Account addresses with a bad StrKey checksum: every address field of
// spec/did-resolver.yaml (`sourcePublicKey`, `newController`, a record's `controller`) is sent with a bad
// checksum to the real app over the simulator: 400 in the envelope, naming the field, never a 500.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressFieldCases, BAD_CHECKSUMS } from '../../test-support/address-fields.ts';
import { resolverModel } from '../platform/resolver-model.ts';
import { startHarness, type Harness } from '../../test-support/resolver.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
}, 60_000);
afterAll(async () => {
  await h?.close();
});

const spec = resolverModel.document;
const cases = BAD_CHECKSUMS.flatMap((bad, i) =>
  addressFieldCases(spec, bad).map((c) => ({ ...c, name: `${c.name} (bad checksum ${i + 1})` })),
);

describe('every address field of the description, with a bad checksum → 400 naming the field', () => {
  it('finds the fields of every write route', () => {
    const names = new Set(
      cases.map(
        (c) =>
          `${c.method} ${c.url.split('?')[0]!.replace(/did%3Aledger%3A[^/]+|did:ledger:[^/]+/, '{did}')} ${c.field}`,
      ),
    );
    for (const want of [
      'POST /v1/dids/stellar sourcePublicKey',
      'POST /v1/dids/stellar record.controller',
      'POST /v1/dids/stellar/{did}/update sourcePublicKey',
      'POST /v1/dids/stellar/{did}/update record.controller',
      'POST /v1/dids/stellar/{did}/transfer newController',
      'POST /v1/dids/stellar/{did}/transfer sourcePublicKey',
      'POST /v1/dids/stellar/{did}/deactivate sourcePublicKey',
    ]) {
      expect(names, want).toContain(want);
    }
  });

  it.each(cases)('$name', async (c) => {
    const res = await h.request(c.method, c.url, c.body !== undefined ? { body: c.body } : {});
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    // The Universal Registrar's operations answer a refusal as a failed state (its OpenAPI), not the envelope.
    const state = (res.body as { didState?: { state: string; error: string; reason: string } }).didState;
    const body = state ? { code: state.error, message: state.reason } : (res.body as { code: string; message: string });
    if (state) expect(state.state).toBe('failed');
    // A record's controller breaks a record rule (spec "Record rules"); any other field is invalid_request.
    if (c.field === 'record.controller') {
      expect(body).toMatchObject({ code: 'invalid_record', message: expect.stringMatching(/controller/) });
    } else {
      expect(body.code).toBe('invalid_request');
      expect(body.message).toContain(`${c.where}.${c.field} is not an account address`);
      expect(body.message).toMatch(/valid checksum/);
    }
  });
});
