import { describe, expect, it } from 'vitest';
import { ApiError, type AuthContext } from '../context.ts';
import { bindAuthorizers, bindToWallet, intParam } from './contract-common.ts';
import type { AuthEntrySummary, CredentialKind, Invocation } from '../../chain/index.ts';

const W = 'GCFIRY65OQE7DFP5KLNS2PF2LVZMUZYJX4OZIEQ36N2IQANUB5XVYOJR';
const X = 'GDWUSKGGFDI4FRXK5EBTRECZSVQSSWJHHJOGH6JWG3AUMFFMQ435DIAG';
const auth = (wallet: string | null, role: AuthContext['role'] = 'standard'): AuthContext => ({
  keyId: 'k',
  wallet,
  role,
  scopes: [],
});

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

describe('bindAuthorizers: the binding covers every authorization entry, of every credential type', () => {
  const inv = (...auth: AuthEntrySummary[]): Invocation => ({
    hash: '',
    source: W,
    operationSource: W,
    contractId: '',
    fn: 'issue',
    args: [],
    authAddresses: auth.map((a) => a.address),
    auth,
    signedBy: [W],
  });
  const entry = (credentials: CredentialKind, address: string, delegates: string[] = []): AuthEntrySummary => ({
    credentials,
    address,
    delegates,
  });
  it.each<{ name: string; given: Invocation; key?: AuthContext; want: string }>([
    { name: 'no entries', given: inv(), want: 'ok' },
    { name: "source-account credentials of the key's wallet", given: inv(entry('sourceAccount', W)), want: 'ok' },
    { name: "legacy ADDRESS of the key's wallet", given: inv(entry('address', W)), want: 'ok' },
    { name: "ADDRESS_V2 of the key's wallet", given: inv(entry('addressV2', W)), want: 'ok' },
    {
      name: "ADDRESS_WITH_DELEGATES of the key's wallet, another address as its delegate",
      given: inv(entry('addressWithDelegates', W, [X])),
      want: 'ok',
    },
    {
      name: 'source-account credentials of another operation source',
      given: inv(entry('sourceAccount', X)),
      want: '403 forbidden',
    },
    {
      name: 'legacy ADDRESS of another address',
      given: inv(entry('sourceAccount', W), entry('address', X)),
      want: '403 forbidden',
    },
    {
      name: 'ADDRESS_V2 of another address',
      given: inv(entry('sourceAccount', W), entry('addressV2', X)),
      want: '403 forbidden',
    },
    {
      name: 'ADDRESS_WITH_DELEGATES of another address, the wallet as delegate',
      given: inv(entry('addressWithDelegates', X, [W])),
      want: '403 forbidden',
    },
    {
      name: 'ADDRESS_V2 of another address, admin key',
      given: inv(entry('addressV2', X)),
      key: auth(W, 'admin'),
      want: 'ok',
    },
    {
      name: 'a key without a wallet',
      given: inv(entry('addressV2', W)),
      key: auth(null),
      want: '403 wallet_not_linked',
    },
  ])('$name → $want', ({ given, key, want }) => {
    expect(outcome(() => bindAuthorizers(key ?? auth(W), 'issuer', given))).toBe(want);
  });

  it('names the credential type and the address', () => {
    const e = (() => {
      try {
        bindAuthorizers(auth(W), 'sponsor', inv(entry('addressV2', X)));
      } catch (err) {
        return err as ApiError;
      }
    })();
    expect(e?.message).toBe(
      `the transaction carries an authorization entry (ADDRESS_V2) for ${X}, which is not the wallet bound to the API key (sponsor binding)`,
    );
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
