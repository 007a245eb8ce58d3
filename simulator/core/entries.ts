// Ledger entries as the simulator keeps them (plain immutable records), their canonical string keys, and their
// real XDR forms (`LedgerKey`, `LedgerEntry`) for getLedgerEntries, footprints, metadata and the state file.
import { xdr } from '@stellar/stellar-sdk';
import { accountIdOf, accountKey, contractHash, contractIdOf } from './crypto.ts';

export type DataDurability = 'persistent' | 'temporary';

export interface AccountEntry {
  readonly t: 'account';
  readonly id: string;
  readonly balance: bigint;
  readonly seqNum: bigint;
  readonly numSubEntries: number;
  readonly lm: number; // last modified ledger
}

export interface TrustlineEntry {
  readonly t: 'trustline';
  readonly account: string;
  readonly code: string;
  readonly issuer: string;
  readonly balance: bigint;
  readonly limit: bigint;
  readonly flags: number;
  readonly lm: number;
}

export interface DataEntry {
  readonly t: 'data';
  readonly contract: string; // C… or G… (auth nonces live under the account's address)
  readonly durability: DataDurability;
  readonly key: xdr.ScVal;
  readonly val: xdr.ScVal;
  readonly lm: number;
  readonly liveUntil: number;
}

export type Executable = { readonly kind: 'wasm'; readonly hash: string } | { readonly kind: 'sac' };

export interface InstanceEntry {
  readonly t: 'instance';
  readonly contract: string;
  readonly exec: Executable;
  /** Instance storage: scValKey(key) → key and value. */
  readonly storage: ReadonlyMap<string, { readonly key: xdr.ScVal; readonly val: xdr.ScVal }>;
  readonly lm: number;
  readonly liveUntil: number;
}

export type Entry = AccountEntry | TrustlineEntry | DataEntry | InstanceEntry;

/** Persistent entries get this TTL at each write (~6 months of 5 s ledgers); the simulator never archives them. */
export const PERSISTENT_TTL = 3_110_400;
export const TRUSTLINE_AUTHORIZED = 1;

// ---- canonical keys -------------------------------------------------------------------------------------------

const T = xdr.ScValType;
const bytesKey = (b: Buffer | string): string => {
  const buf = typeof b === 'string' ? Buffer.from(b, 'utf8') : b;
  return `${buf.length}:${buf.toString('latin1')}`;
};

/** An injective string for an ScVal (a prefix code: every part is tagged and length- or ';'-delimited), equal for
 *  equal values whether built in JS or parsed from XDR. Much cheaper than encoding XDR for every storage access. */
function fingerprint(v: xdr.ScVal): string {
  switch (v.switch().value) {
    case T.scvBool().value:
      return v.b() ? 'T' : 'F';
    case T.scvVoid().value:
      return 'V';
    case T.scvU32().value:
      return `u${v.u32()};`;
    case T.scvI32().value:
      return `i${v.i32()};`;
    case T.scvU64().value:
      return `U${v.u64().toString()};`;
    case T.scvI64().value:
      return `L${v.i64().toString()};`;
    case T.scvU128().value:
      return `q${v.u128().hi().toString()},${v.u128().lo().toString()};`;
    case T.scvI128().value:
      return `Q${v.i128().hi().toString()},${v.i128().lo().toString()};`;
    case T.scvSymbol().value:
      return `y${bytesKey(v.sym())}`;
    case T.scvString().value:
      return `s${bytesKey(v.str())}`;
    case T.scvBytes().value:
      return `b${bytesKey(v.bytes())}`;
    case T.scvVec().value: {
      const items = v.vec();
      if (!items) return 'n';
      let out = `[${items.length};`;
      for (const x of items) out += fingerprint(x);
      return out;
    }
    case T.scvMap().value: {
      const m = v.map();
      if (!m) return 'N';
      let out = `{${m.length};`;
      for (const e of m) out += fingerprint(e.key()) + fingerprint(e.val());
      return out;
    }
    case T.scvAddress().value: {
      const a = v.address();
      if (a.switch() === xdr.ScAddressType.scAddressTypeAccount()) return `g${bytesKey(a.accountId().ed25519())}`;
      if (a.switch() === xdr.ScAddressType.scAddressTypeContract()) return `c${bytesKey(a.contractId() as unknown as Buffer)}`;
      return `x${bytesKey(v.toXDR())}`;
    }
    case T.scvLedgerKeyNonce().value:
      return `o${v.nonceKey().nonce().toString()};`;
    default:
      return `x${bytesKey(v.toXDR())}`;
  }
}

const keyCache = new WeakMap<xdr.ScVal, string>();
/** The canonical key of an ScVal used as a storage key (memoized per object: contracts reuse constant keys). */
export function scValKey(v: xdr.ScVal): string {
  let k = keyCache.get(v);
  if (k === undefined) {
    k = fingerprint(v);
    keyCache.set(v, k);
  }
  return k;
}

export const accountKeyId = (g: string): string => `a|${g}`;
export const trustlineKeyId = (g: string, code: string, issuer: string): string => `t|${g}|${code}|${issuer}`;
export const instanceKeyId = (c: string): string => `i|${c}`;
export const dataKeyId = (contract: string, durability: DataDurability, key: xdr.ScVal): string =>
  `d|${contract}|${durability === 'persistent' ? 'p' : 't'}|${scValKey(key)}`;

export function entryKeyId(e: Entry): string {
  switch (e.t) {
    case 'account':
      return accountKeyId(e.id);
    case 'trustline':
      return trustlineKeyId(e.account, e.code, e.issuer);
    case 'instance':
      return instanceKeyId(e.contract);
    case 'data':
      return dataKeyId(e.contract, e.durability, e.key);
  }
}

// ---- addresses ------------------------------------------------------------------------------------------------

export function toScAddress(a: string): xdr.ScAddress {
  return a.startsWith('C')
    ? xdr.ScAddress.scAddressTypeContract(contractHash(a) as unknown as xdr.ContractId)
    : xdr.ScAddress.scAddressTypeAccount(xdr.PublicKey.publicKeyTypeEd25519(accountKey(a)));
}

export function fromScAddress(a: xdr.ScAddress): string {
  switch (a.switch()) {
    case xdr.ScAddressType.scAddressTypeAccount():
      return accountIdOf(a.accountId().ed25519());
    case xdr.ScAddressType.scAddressTypeContract():
      return contractIdOf(a.contractId() as unknown as Buffer);
    default:
      throw new Error(`unsupported address type ${a.switch().name}`);
  }
}

export const accountXdrId = (g: string): xdr.AccountId => xdr.PublicKey.publicKeyTypeEd25519(accountKey(g));

export function trustLineAsset(code: string, issuer: string): xdr.TrustLineAsset {
  const padded = Buffer.alloc(code.length <= 4 ? 4 : 12);
  padded.write(code, 'ascii');
  return code.length <= 4
    ? xdr.TrustLineAsset.assetTypeCreditAlphanum4(new xdr.AlphaNum4({ assetCode: padded, issuer: accountXdrId(issuer) }))
    : xdr.TrustLineAsset.assetTypeCreditAlphanum12(new xdr.AlphaNum12({ assetCode: padded, issuer: accountXdrId(issuer) }));
}

function assetCodeOf(buf: Buffer): string {
  return buf.toString('ascii').replace(/\0+$/, '');
}

// ---- LedgerKey ↔ canonical key --------------------------------------------------------------------------------

const keyIds = new WeakMap<xdr.LedgerKey, string>();

/** Canonical key of an XDR LedgerKey; undefined for entry kinds the simulator does not hold. */
export function keyIdOfLedgerKey(k: xdr.LedgerKey): string | undefined {
  const cached = keyIds.get(k);
  if (cached !== undefined) return cached;
  let id: string | undefined;
  switch (k.switch()) {
    case xdr.LedgerEntryType.account():
      id = accountKeyId(accountIdOf(k.account().accountId().ed25519()));
      break;
    case xdr.LedgerEntryType.trustline(): {
      const tl = k.trustLine();
      const asset = tl.asset();
      const arm = asset.switch() === xdr.AssetType.assetTypeCreditAlphanum4() ? asset.alphaNum4() : asset.switch() === xdr.AssetType.assetTypeCreditAlphanum12() ? asset.alphaNum12() : undefined;
      if (arm) id = trustlineKeyId(accountIdOf(tl.accountId().ed25519()), assetCodeOf(arm.assetCode()), accountIdOf(arm.issuer().ed25519()));
      break;
    }
    case xdr.LedgerEntryType.contractData(): {
      const cd = k.contractData();
      const contract = fromScAddress(cd.contract());
      if (cd.key().switch() === xdr.ScValType.scvLedgerKeyContractInstance()) id = instanceKeyId(contract);
      else id = dataKeyId(contract, cd.durability() === xdr.ContractDataDurability.temporary() ? 'temporary' : 'persistent', cd.key());
      break;
    }
    default:
      id = undefined;
  }
  if (id !== undefined) keyIds.set(k, id);
  return id;
}

const INSTANCE_KEY = xdr.ScVal.scvLedgerKeyContractInstance();

/** XDR LedgerKey of a canonical key; a contract data key needs its ScVal (`keyVal`). */
export function ledgerKeyOf(id: string, keyVal?: xdr.ScVal): xdr.LedgerKey {
  const parts = id.split('|');
  let k: xdr.LedgerKey;
  switch (parts[0]) {
    case 'a':
      k = xdr.LedgerKey.account(new xdr.LedgerKeyAccount({ accountId: accountXdrId(parts[1]!) }));
      break;
    case 't':
      k = xdr.LedgerKey.trustline(
        new xdr.LedgerKeyTrustLine({ accountId: accountXdrId(parts[1]!), asset: trustLineAsset(parts[2]!, parts[3]!) }),
      );
      break;
    case 'i':
      k = xdr.LedgerKey.contractData(
        new xdr.LedgerKeyContractData({ contract: toScAddress(parts[1]!), key: INSTANCE_KEY, durability: xdr.ContractDataDurability.persistent() }),
      );
      break;
    case 'd':
      if (!keyVal) throw new Error(`the ScVal of contract data key ${id} is needed`);
      k = xdr.LedgerKey.contractData(
        new xdr.LedgerKeyContractData({
          contract: toScAddress(parts[1]!),
          key: keyVal,
          durability: parts[2] === 't' ? xdr.ContractDataDurability.temporary() : xdr.ContractDataDurability.persistent(),
        }),
      );
      break;
    default:
      throw new Error(`bad key ${id}`);
  }
  keyIds.set(k, id);
  return k;
}

/** XDR LedgerKey of an entry. */
export function ledgerKeyOfEntry(e: Entry): xdr.LedgerKey {
  return ledgerKeyOf(entryKeyId(e), e.t === 'data' ? e.key : undefined);
}

// ---- entries → XDR --------------------------------------------------------------------------------------------

const int64 = (n: bigint): xdr.Int64 => xdr.Int64.fromString(n.toString());
const THRESHOLDS = Buffer.from([1, 0, 0, 0]);

/** ScMap entries sorted by key XDR (the host keeps maps ordered). */
export function sortedMap(storage: InstanceEntry['storage']): xdr.ScMapEntry[] {
  return [...storage.values()]
    .map((e) => ({ e, k: e.key.toXDR() }))
    .sort((a, b) => Buffer.compare(a.k, b.k))
    .map(({ e }) => new xdr.ScMapEntry({ key: e.key, val: e.val }));
}

export function entryDataXdr(e: Entry): xdr.LedgerEntryData {
  switch (e.t) {
    case 'account':
      return xdr.LedgerEntryData.account(
        new xdr.AccountEntry({
          accountId: accountXdrId(e.id),
          balance: int64(e.balance),
          seqNum: int64(e.seqNum),
          numSubEntries: e.numSubEntries,
          inflationDest: null,
          flags: 0,
          homeDomain: '',
          thresholds: THRESHOLDS,
          signers: [],
          ext: new xdr.AccountEntryExt(0),
        }),
      );
    case 'trustline':
      return xdr.LedgerEntryData.trustline(
        new xdr.TrustLineEntry({
          accountId: accountXdrId(e.account),
          asset: trustLineAsset(e.code, e.issuer),
          balance: int64(e.balance),
          limit: int64(e.limit),
          flags: e.flags,
          ext: new xdr.TrustLineEntryExt(0),
        }),
      );
    case 'data':
      return xdr.LedgerEntryData.contractData(
        new xdr.ContractDataEntry({
          ext: new xdr.ExtensionPoint(0),
          contract: toScAddress(e.contract),
          key: e.key,
          durability: e.durability === 'temporary' ? xdr.ContractDataDurability.temporary() : xdr.ContractDataDurability.persistent(),
          val: e.val,
        }),
      );
    case 'instance':
      return xdr.LedgerEntryData.contractData(
        new xdr.ContractDataEntry({
          ext: new xdr.ExtensionPoint(0),
          contract: toScAddress(e.contract),
          key: INSTANCE_KEY,
          durability: xdr.ContractDataDurability.persistent(),
          val: xdr.ScVal.scvContractInstance(
            new xdr.ScContractInstance({
              executable:
                e.exec.kind === 'wasm'
                  ? xdr.ContractExecutable.contractExecutableWasm(Buffer.from(e.exec.hash, 'hex'))
                  : xdr.ContractExecutable.contractExecutableStellarAsset(),
              storage: e.storage.size ? sortedMap(e.storage) : null,
            }),
          ),
        }),
      );
  }
}

export function entryXdr(e: Entry): xdr.LedgerEntry {
  return new xdr.LedgerEntry({ lastModifiedLedgerSeq: e.lm, data: entryDataXdr(e), ext: new xdr.LedgerEntryExt(0) });
}

export function liveUntilOf(e: Entry): number | undefined {
  return e.t === 'data' || e.t === 'instance' ? e.liveUntil : undefined;
}

// ---- XDR → entries (state file) -------------------------------------------------------------------------------

export function entryFromXdr(le: xdr.LedgerEntry, liveUntil: number): Entry {
  const lm = le.lastModifiedLedgerSeq();
  const d = le.data();
  switch (d.switch()) {
    case xdr.LedgerEntryType.account(): {
      const a = d.account();
      return {
        t: 'account',
        id: accountIdOf(a.accountId().ed25519()),
        balance: BigInt(a.balance().toString()),
        seqNum: BigInt(a.seqNum().toString()),
        numSubEntries: a.numSubEntries(),
        lm,
      };
    }
    case xdr.LedgerEntryType.trustline(): {
      const t = d.trustLine();
      const asset = t.asset();
      const arm = asset.switch() === xdr.AssetType.assetTypeCreditAlphanum4() ? asset.alphaNum4() : asset.alphaNum12();
      return {
        t: 'trustline',
        account: accountIdOf(t.accountId().ed25519()),
        code: assetCodeOf(arm.assetCode()),
        issuer: accountIdOf(arm.issuer().ed25519()),
        balance: BigInt(t.balance().toString()),
        limit: BigInt(t.limit().toString()),
        flags: t.flags(),
        lm,
      };
    }
    case xdr.LedgerEntryType.contractData(): {
      const c = d.contractData();
      const contract = fromScAddress(c.contract());
      if (c.key().switch() === xdr.ScValType.scvLedgerKeyContractInstance()) {
        const inst = c.val().instance();
        const exe = inst.executable();
        const storage = new Map<string, { key: xdr.ScVal; val: xdr.ScVal }>();
        for (const me of inst.storage() ?? []) storage.set(scValKey(me.key()), { key: me.key(), val: me.val() });
        return {
          t: 'instance',
          contract,
          exec:
            exe.switch() === xdr.ContractExecutableType.contractExecutableWasm()
              ? { kind: 'wasm', hash: Buffer.from(exe.wasmHash()).toString('hex') }
              : { kind: 'sac' },
          storage,
          lm,
          liveUntil,
        };
      }
      return {
        t: 'data',
        contract,
        durability: c.durability() === xdr.ContractDataDurability.temporary() ? 'temporary' : 'persistent',
        key: c.key(),
        val: c.val(),
        lm,
        liveUntil,
      };
    }
    default:
      throw new Error(`unsupported ledger entry ${d.switch().name}`);
  }
}
