// CONTRIBUTING.md "Add a check", over HTTP: every check the spec lists (CredentialCheckName) answers its member
// of `results` when asked alone and when none is named, and a name the spec lacks is refused before anything is
// verified. A new check that is in the spec but not run fails here; one run but not in the spec cannot be asked.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { vaultModel } from '../../platform/vault-model.ts';
import { startVerificationEnv, type VerificationEnv } from '../../../test-support/verification.ts';

const CHECKS = (vaultModel.document.components.schemas!['CredentialCheckName'] as { enum: string[] }).enum;

let t: VerificationEnv;
let vc: Record<string, unknown>;

const verify = (options?: Record<string, unknown>) =>
  t.call('/credentials/verify', { verifiableCredential: vc, ...(options ? { options } : {}) });

beforeAll(async () => {
  t = await startVerificationEnv();
  // A credential with every input a check reads: both ends of its validity period and its status entry.
  const credential = t.credential({ validUntil: '2099-01-01T00:00:00Z', credentialStatus: t.statusEntry('vc-all') });
  vc = await t.sign({ credential });
  await t.issue('vc-all', vc);
}, 120_000);
afterAll(async () => {
  await t?.close();
});

describe('each check of the spec', () => {
  it('runs by default: results has one member per check, and every check passes', async () => {
    const r = await verify();
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(Object.keys(r.body.results).sort()).toEqual([...CHECKS].sort());
  });

  it.each(CHECKS)('%s, asked alone, answers its member of results', async (check) => {
    const r = await verify({ checks: [check] });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(Object.keys(r.body.results)).toContain(check);
    // Only what it needs runs besides it (wantedChecks: a status entry is trusted under a verified proof).
    expect(Object.keys(r.body.results).filter((k) => k !== check && k !== 'proof')).toEqual([]);
  });

  it('a check name the spec lacks is 400 invalid_request, nothing verified', async () => {
    const unknown = 'unknownCheck';
    expect(CHECKS).not.toContain(unknown);
    const r = await verify({ checks: ['proof', unknown] });
    expect([r.status, r.body.error]).toEqual([400, 'invalid_request']);
    // The validator's words name the position and the spec's names.
    expect(r.body.message).toMatch(/checks\/1\b/);
    expect(r.body.message).toContain(CHECKS.join(', '));
    expect(r.body.results).toBeUndefined();
  });
});
