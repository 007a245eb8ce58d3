// Who may name a stored credential on POST /credentials/verify (checkReferenceAccess), without a service: the
// routes' HTTP tests (verify.test.ts) show the same refusals end to end.
import { describe, expect, it } from 'vitest';
import type { AuthContext } from '../context.ts';
import { checkReferenceAccess } from './verify.ts';

const OWNER = 'GCFIRY65OQE7DFP5KLNS2PF2LVZMUZYJX4OZIEQ36N2IQANUB5XVYOJR';
const OTHER = 'GBZXN7PIRZGNMHGA7MUUUF4GWPY5AYPV6LY4UV2GL6VJGIQRXFDNMADI';
const key = (role: AuthContext['role'], wallet: string | null): AuthContext => ({
  keyId: 'k',
  wallet,
  role,
  scopes: [],
});

/** The code checkReferenceAccess refuses with, or 'allowed'. */
function outcome(auth: AuthContext | undefined, presenting: boolean): string {
  try {
    checkReferenceAccess(auth, OWNER, presenting);
    return 'allowed';
  } catch (e) {
    return (e as { code: string }).code;
  }
}

describe('checkReferenceAccess', () => {
  it.each([
    ['no key', undefined, false, 'missing_api_key'],
    ['the owner', key('standard', OWNER), false, 'allowed'],
    ['the owner comparing a presented credential', key('standard', OWNER), true, 'allowed'],
    ['another wallet', key('standard', OTHER), false, 'forbidden'],
    ['an admin key', key('admin', null), false, 'allowed'],
    ['an admin key comparing a presented credential', key('admin', null), true, 'forbidden'],
  ])('%s: %s', (_name, auth, presenting, want) => {
    expect(outcome(auth, presenting)).toBe(want);
  });
});
