// Issuer registry (vault-api.yaml "Issuer registry"): the factory's per-issuer custom fee table. Mutations
// need an admin key (x-required-role, checked by the platform middleware) and the factory admin's signature.
import { VaultErrors, type VaultAppDeps } from '../context.ts';
import { decodeRemoveFeeCustomArgs, decodeSetFeeCustomArgs, mismatch, type Invocation } from '../../chain/index.ts';
import type { operations } from '../../generated/vault-api.ts';
import type { RouteTable } from '../../platform/app.ts';
import type { OperationHandler } from '../../platform/typed.ts';
import { expectFactory, requireSame, writeHandler } from './contract-common.ts';

/** The issuer registry's handlers, by operationId. */
export function issuerRegistryRoutes(deps: VaultAppDeps): RouteTable<operations> {
  const { chain } = deps;

  /** sourcePublicKey must be the factory admin, the only signer the fee table accepts. */
  const adminSource = async (source: string) =>
    requireSame('sourcePublicKey', source, 'the factory admin', await chain.factory.getAdmin());

  /** expiresAt (ISO-8601) → unix seconds; in the past → 400 expiresAt_in_past. */
  const expiry = (expiresAt: string | undefined): { expiresAt?: bigint } => {
    if (expiresAt === undefined) return {};
    const ms = Date.parse(expiresAt);
    if (Number.isNaN(ms)) throw VaultErrors.invalidRequest('expiresAt must be an ISO-8601 date-time');
    if (ms <= deps.now()) throw VaultErrors.expiresAtInPast(`expiresAt ${expiresAt} lies in the past`);
    return { expiresAt: BigInt(Math.floor(ms / 1000)) };
  };

  const setFee = async (issuer: string, b: { amount: string; expiresAt?: string; sourcePublicKey: string }) => {
    const exp = expiry(b.expiresAt);
    await adminSource(b.sourcePublicKey);
    return chain.factory.setFeeCustom({ source: b.sourcePublicKey, issuer, amount: BigInt(b.amount), ...exp });
  };

  /** At submit: this function on this network's factory, for the path's issuer when the route names one. */
  const checkFee = (inv: Invocation, fn: 'set_fee_custom' | 'remove_fee_custom', issuer?: string) => {
    if (inv.fn !== fn) throw mismatch(`transaction invokes ${inv.fn}, expected ${fn}`);
    expectFactory(deps, inv);
    const decoded = fn === 'set_fee_custom' ? decodeSetFeeCustomArgs(inv) : decodeRemoveFeeCustomArgs(inv);
    if (issuer !== undefined && decoded.issuer !== issuer) {
      throw mismatch(`the signed transaction changes the fee of another issuer than ${issuer}`);
    }
  };

  const setIssuerFee = writeHandler<operations['setIssuerFee']>(deps, {
    prepare: (b) => setFee(b.issuer, b),
    check: (inv) => checkFee(inv, 'set_fee_custom'),
  });

  // The writes' bodies and this read's answer are the operations' (src/platform/typed.ts).
  const getIssuerFee: OperationHandler<operations['getIssuerFee']> = async (req, res) => {
    const issuer = req.params.issuer;
    if (!/^G[A-Z2-7]{55}$/.test(issuer)) throw VaultErrors.invalidRequest('issuer must be an account address');
    const q = await chain.factory.quoteFee(issuer);
    res.json({ issuer, enabled: q.enabled, amount: q.amount.toString(), token: q.token ?? null, dest: q.dest ?? null });
  };

  const updateIssuerFee = writeHandler<operations['updateIssuerFee']>(deps, {
    prepare: (b, _auth, req) => setFee(req.params.issuer, b),
    check: (inv, _auth, req) => checkFee(inv, 'set_fee_custom', req.params.issuer),
  });

  const removeIssuerFee = writeHandler<operations['removeIssuerFee']>(deps, {
    prepare: async (b, _auth, req) => {
      await adminSource(b.sourcePublicKey);
      return chain.factory.removeFeeCustom({ source: b.sourcePublicKey, issuer: req.params.issuer });
    },
    check: (inv, _auth, req) => checkFee(inv, 'remove_fee_custom', req.params.issuer),
  });

  return { setIssuerFee, getIssuerFee, updateIssuerFee, removeIssuerFee };
}
