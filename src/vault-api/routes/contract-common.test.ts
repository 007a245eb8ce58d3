import { describe, expect, it } from 'vitest';
import { ApiError, type AuthContext } from '../context.ts';
import { bindToWallet, intParam } from './contract-common.ts';

const W = 'GCFIRY65OQE7DFP5KLNS2PF2LVZMUZYJX4OZIEQ36N2IQANUB5XVYOJR';
const X = 'GDWUSKGGFDI4FRXK5EBTRECZSVQSSWJHHJOGH6JWG3AUMFFMQ435DIAG';
const auth = (wallet: string | null, role: AuthContext['role'] = 'standard'): AuthContext => ({ keyId: 'k', wallet, role, scopes: [] });

const outcome = (f: () => unknown): string => {
  try {
    f();
    return 'ok';
  } catch (e) {
    return e instanceof ApiError ? `${e.status} ${e.code}` : `other ${String(e)}`;
  }
};

describe('bindToWallet (vault-api.yaml "Bindings")', () => {
  it.each([
    { given: auth(W), value: W, want: 'ok' },
    { given: auth(W), value: X, want: '403 forbidden' },
    { given: auth(W, 'early'), value: X, want: '403 forbidden' },
    { given: auth(null), value: W, want: '403 wallet_not_linked' },
    { given: auth(W, 'admin'), value: X, want: 'ok' },
    { given: auth(null, 'admin'), value: X, want: 'ok' },
  ])('$given.role key of $given.wallet, field $value → $want', ({ given, value, want }) => {
    expect(outcome(() => bindToWallet(given, 'ownership', 'owner', value))).toBe(want);
  });
});

describe('intParam', () => {
  it.each([
    { v: undefined, name: 'limit' as const, want: 50 },
    { v: '200', name: 'limit' as const, want: 200 },
    { v: 201, name: 'limit' as const, want: '400 limit_too_large' },
    { v: '0', name: 'limit' as const, want: '400 invalid_request' },
    { v: 'x', name: 'offset' as const, want: '400 invalid_request' },
    { v: '-1', name: 'offset' as const, want: '400 invalid_request' },
    { v: '7', name: 'offset' as const, want: 7 },
    { v: '4294967295', name: 'offset' as const, want: 4294967295 },
    { v: 4294967296, name: 'offset' as const, want: '400 invalid_request' },
  ])('$name=$v → $want', ({ v, name, want }) => {
    let got: unknown;
    const o = outcome(() => (got = intParam(v, name, name === 'limit' ? 50 : 0)));
    expect(o === 'ok' ? got : o).toBe(want);
  });
});
