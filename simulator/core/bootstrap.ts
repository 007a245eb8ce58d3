// Genesis of a network: the operator (factory admin and fee destination), friendbot and stablecoin issuer
// accounts, the Stellar Asset Contracts, the factory (fee configured), the vault template and the DID registry.
// Keys are derived from the passphrase and a role, so a restarted simulator has the same ids (like the well-known
// accounts of other local chains); a transaction signed here is still worthless elsewhere (the passphrase).
import { Keypair, xdr } from '@stellar/stellar-sdk';
import { sha256 } from './crypto.ts';
import { contractIdFromAddress } from './derive.ts';
import {
  TRUSTLINE_AUTHORIZED,
  accountKeyId,
  trustlineKeyId,
  type AccountEntry,
  type TrustlineEntry,
} from './entries.ts';
import { Invocation, type ContractRegistry } from './invocation.ts';
import type { Ledger } from './ledger.ts';
import { sacContractId, sacInstanceStorage, type AssetDesc } from './sac.ts';

export const XLM = 10_000_000n; // stroops per unit

/** Template hashes the network deploys. */
export interface Templates {
  readonly factory: Buffer;
  readonly vault: Buffer;
  readonly registry: Buffer;
}

export interface Profile {
  readonly passphrase: string;
  /** The fee token: the native asset, or a credit asset issued by the network's stablecoin issuer. */
  readonly feeAsset: 'native' | { readonly code: string };
  readonly feeAmount: bigint;
}

export interface Genesis {
  readonly operator: Keypair;
  readonly friendbot: Keypair;
  readonly issuer: Keypair;
  readonly nativeTokenId: string;
  readonly stablecoin?: { readonly code: string; readonly issuer: string; readonly tokenId: string };
  readonly factoryId: string;
  readonly registryId: string;
  readonly feeTokenId: string;
}

export const roleKeypair = (passphrase: string, role: string): Keypair =>
  Keypair.fromRawEd25519Seed(sha256(Buffer.from(`credential-vault simulator/${role}/${passphrase}`)));

const FACTORY_SALT = sha256(Buffer.from('credential-vault simulator: factory'));
const REGISTRY_SALT = sha256(Buffer.from('credential-vault simulator: registry'));

/** Ids and keys of a network, without touching a ledger (also what a loaded state file must agree with). */
export function genesisIds(profile: Profile): Genesis {
  const operator = roleKeypair(profile.passphrase, 'operator');
  const friendbot = roleKeypair(profile.passphrase, 'friendbot');
  const issuer = roleKeypair(profile.passphrase, 'stablecoin-issuer');
  const nativeTokenId = sacContractId({ code: 'native' }, profile.passphrase);
  const stablecoin =
    profile.feeAsset === 'native'
      ? undefined
      : {
          code: profile.feeAsset.code,
          issuer: issuer.publicKey(),
          tokenId: sacContractId({ code: profile.feeAsset.code, issuer: issuer.publicKey() }, profile.passphrase),
        };
  return {
    operator,
    friendbot,
    issuer,
    nativeTokenId,
    stablecoin,
    factoryId: contractIdFromAddress(profile.passphrase, operator.publicKey(), FACTORY_SALT),
    registryId: contractIdFromAddress(profile.passphrase, operator.publicKey(), REGISTRY_SALT),
    feeTokenId: stablecoin?.tokenId ?? nativeTokenId,
  };
}

function account(id: string, balance: bigint, seq: number): AccountEntry {
  return { t: 'account', id, balance, seqNum: BigInt(seq) << 32n, numSubEntries: 0, lm: seq };
}

/** Writes the genesis state into `ledger` (its first ledger). */
export function bootstrap(
  ledger: Ledger,
  contracts: ContractRegistry,
  templates: Templates,
  profile: Profile,
  g: Genesis = genesisIds(profile),
): Genesis {
  const seq = ledger.latest.seq;
  const inv = new Invocation({ ledger, contracts, seq, closeTime: ledger.latest.closeTime, mode: 'genesis' });
  const put = (a: AccountEntry): void => inv.put(accountKeyId(a.id), a);
  put(account(g.operator.publicKey(), 10_000_000n * XLM, seq));
  put(account(g.friendbot.publicKey(), 50_000_000_000n * XLM, seq));
  const sacs: AssetDesc[] = [{ code: 'native' }];
  if (g.stablecoin) {
    const { code, issuer } = g.stablecoin;
    put(account(issuer, 10_000n * XLM, seq));
    sacs.push({ code, issuer });
    // the fee destination holds a trustline, or no fee could ever be paid to it
    put({ ...account(g.operator.publicKey(), 10_000_000n * XLM, seq), numSubEntries: 1 });
    const line: TrustlineEntry = {
      t: 'trustline',
      account: g.operator.publicKey(),
      code,
      issuer,
      balance: 0n,
      limit: (1n << 63n) - 1n,
      flags: TRUSTLINE_AUTHORIZED,
      lm: seq,
    };
    inv.put(trustlineKeyId(line.account, code, issuer), line);
  }
  for (const a of sacs) {
    inv.putInstance({
      t: 'instance',
      contract: sacContractId(a, profile.passphrase),
      exec: { kind: 'sac' },
      storage: sacInstanceStorage(ledger.codec, a),
      lm: seq,
      liveUntil: ledger.minLiveUntil('persistent', seq),
    });
  }
  const operator = g.operator.publicKey();
  const opAddr = xdr.ScVal.scvAddress(ledger.codec.toScAddress(operator));
  const factoryId = inv.deploy(operator, undefined, templates.factory, FACTORY_SALT, [
    opAddr,
    xdr.ScVal.scvBytes(templates.vault),
  ]);
  const registryId = inv.deploy(operator, undefined, templates.registry, REGISTRY_SALT, [opAddr]);
  const feeTokenId = g.stablecoin?.tokenId ?? g.nativeTokenId;
  const amount = xdr.ScVal.scvI128(
    new xdr.Int128Parts({ hi: xdr.Int64.fromString('0'), lo: xdr.Uint64.fromString(profile.feeAmount.toString()) }),
  );
  inv.invoke(factoryId, 'set_fee_config', [xdr.ScVal.scvAddress(ledger.codec.toScAddress(feeTokenId)), opAddr, amount]);
  inv.commit();
  return { ...g, factoryId, registryId, feeTokenId };
}
