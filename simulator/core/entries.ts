// Ledger entries as the simulator keeps them (plain immutable records), their canonical string keys, and their
// real XDR forms (`LedgerKey`, `LedgerEntry`) for getLedgerEntries, footprints, metadata and the state file.
import { xdr } from '@stellar/stellar-sdk';
import type { LRUCache } from 'lru-cache';
import { asBuffer, DEFAULT_KEY_CACHE_SIZES, lru, SimKeys, xdrBase64, type KeyCacheSizes } from './crypto.ts';
import { bytesKey, fingerprint } from './fingerprint.ts';

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

export const TRUSTLINE_AUTHORIZED = 1;

// ---- canonical keys -------------------------------------------------------------------------------------------

export const accountKeyId = (g: string): string => `a|${g}`;
export const trustlineKeyId = (g: string, code: string, issuer: string): string => `t|${g}|${code}|${issuer}`;
export const instanceKeyId = (c: string): string => `i|${c}`;

function assetCodeOf(code: Uint8Array): string {
  return asBuffer(code).toString('ascii').replace(/\0+$/, '');
}

const INSTANCE_KEY = xdr.ScVal.scvLedgerKeyContractInstance();
const THRESHOLDS = new Uint8Array([1, 0, 0, 0]);

export function liveUntilOf(e: Entry): number | undefined {
  return e.t === 'data' || e.t === 'instance' ? e.liveUntil : undefined;
}

/**
 * Entries and keys ↔ XDR for one simulator, with its caches: the key conversions of SimKeys, canonical keys of
 * ScVals and LedgerKeys (memoized per object: contracts reuse constant keys), and LedgerKey objects by canonical key.
 */
export class SimCodec extends SimKeys {
  private readonly scValKeys = new WeakMap<xdr.ScVal, string>();
  private readonly keyIds = new WeakMap<xdr.LedgerKey, string>();
  private readonly ledgerKeys: LRUCache<string, xdr.LedgerKey>;
  /** Base64 XDR of immutable entries and shared LedgerKeys, per object (simulateTransaction's stateChanges). */
  private readonly base64 = new WeakMap<Entry | xdr.LedgerKey, string>();
  /** XDR per immutable object (bytesOf): entries, instance storage keys, contract events. */
  private readonly xdrBytes = new WeakMap<object, Uint8Array>();
  /** The asset of each Stellar Asset Contract instance (sac.ts; fixed at the SAC's deployment). */
  readonly sacAssets = lru<{ readonly code: string; readonly issuer?: string }>(10_000);
  /** Transaction hashes per transaction object, with the network id they were taken under (check.ts txHash). */
  readonly txHashes = new WeakMap<xdr.Transaction, { readonly id: Buffer; readonly hash: Buffer }>();

  constructor(
    sizes: KeyCacheSizes & { readonly ledgerKeys: number } = { ...DEFAULT_KEY_CACHE_SIZES, ledgerKeys: 50_000 },
  ) {
    super(sizes);
    this.ledgerKeys = lru(sizes.ledgerKeys);
  }

  /**
   * The canonical key of an ScVal used as a storage key. Built each time: most keys are made fresh for one access
   * (`statusKey(vcId)`, decoded arguments), and remembering each in a WeakMap cost more than building it (about
   * half of a verify_vc read's CPU went to the WeakMap's inserts and their collection). Only the kinds keyed by
   * their XDR encoding (the instance key, errors, 256-bit numbers, …) are remembered per object.
   */
  scValKey(v: xdr.ScVal): string {
    return fingerprint(v, this.xdrKey);
  }

  /** `x` and the XDR of an ScVal the fingerprint does not spell out, remembered per object. */
  private readonly xdrKey = (v: xdr.ScVal): string => {
    let k = this.scValKeys.get(v);
    if (k === undefined) {
      k = `x${bytesKey(v.toXdr())}`;
      this.scValKeys.set(v, k);
    }
    return k;
  };

  dataKeyId(contract: string, durability: DataDurability, key: xdr.ScVal): string {
    return `d|${contract}|${durability === 'persistent' ? 'p' : 't'}|${this.scValKey(key)}`;
  }

  entryKeyId(e: Entry): string {
    switch (e.t) {
      case 'account':
        return accountKeyId(e.id);
      case 'trustline':
        return trustlineKeyId(e.account, e.code, e.issuer);
      case 'instance':
        return instanceKeyId(e.contract);
      case 'data':
        return this.dataKeyId(e.contract, e.durability, e.key);
    }
  }

  // ---- addresses ----------------------------------------------------------------------------------------------

  toScAddress(a: string): xdr.ScAddress {
    return a.startsWith('C')
      ? xdr.ScAddress.scAddressTypeContract(new xdr.ContractId(this.contractHash(a)))
      : xdr.ScAddress.scAddressTypeAccount(xdr.PublicKey.publicKeyTypeEd25519(this.accountKey(a)));
  }

  fromScAddress(a: xdr.ScAddress): string {
    switch (a.type) {
      case 'scAddressTypeAccount':
        return this.accountIdOf(a.accountId.ed25519.value);
      case 'scAddressTypeContract':
        return this.contractIdOf(a.contractId.value);
      default:
        throw new Error(`unsupported address type ${a.type}`);
    }
  }

  accountXdrId(g: string): xdr.AccountId {
    return xdr.PublicKey.publicKeyTypeEd25519(this.accountKey(g));
  }

  trustLineAsset(code: string, issuer: string): xdr.TrustLineAsset {
    const padded = Buffer.alloc(code.length <= 4 ? 4 : 12);
    padded.write(code, 'ascii');
    return code.length <= 4
      ? xdr.TrustLineAsset.assetTypeCreditAlphanum4(
          new xdr.AlphaNum4({ assetCode: padded, issuer: this.accountXdrId(issuer) }),
        )
      : xdr.TrustLineAsset.assetTypeCreditAlphanum12(
          new xdr.AlphaNum12({ assetCode: padded, issuer: this.accountXdrId(issuer) }),
        );
  }

  // ---- LedgerKey ↔ canonical key ------------------------------------------------------------------------------

  /** Canonical key of an XDR LedgerKey; undefined for entry kinds the simulator does not hold. */
  keyIdOfLedgerKey(k: xdr.LedgerKey): string | undefined {
    const cached = this.keyIds.get(k);
    if (cached !== undefined) return cached;
    let id: string | undefined;
    switch (k.type) {
      case 'account':
        id = accountKeyId(this.accountIdOf(k.account.accountId.ed25519.value));
        break;
      case 'trustline': {
        const tl = k.trustLine;
        const asset = tl.asset;
        const arm =
          asset.type === 'assetTypeCreditAlphanum4'
            ? asset.alphaNum4
            : asset.type === 'assetTypeCreditAlphanum12'
              ? asset.alphaNum12
              : undefined;
        if (arm)
          id = trustlineKeyId(
            this.accountIdOf(tl.accountId.ed25519.value),
            assetCodeOf(arm.assetCode.value),
            this.accountIdOf(arm.issuer.ed25519.value),
          );
        break;
      }
      case 'contractData': {
        const cd = k.contractData;
        // Contract data lives under contracts (and nonces under accounts); any other address type names nothing.
        if (cd.contract.type !== 'scAddressTypeContract' && cd.contract.type !== 'scAddressTypeAccount') break;
        const contract = this.fromScAddress(cd.contract);
        if (cd.key.type === 'scvLedgerKeyContractInstance') id = instanceKeyId(contract);
        else id = this.dataKeyId(contract, cd.durability.name === 'temporary' ? 'temporary' : 'persistent', cd.key);
        break;
      }
      default:
        id = undefined;
    }
    if (id !== undefined) this.keyIds.set(k, id);
    return id;
  }

  /** XDR LedgerKey of a canonical key; a contract data key needs its ScVal (`keyVal`). */
  ledgerKeyOf(id: string, keyVal?: xdr.ScVal): xdr.LedgerKey {
    const parts = id.split('|');
    let k: xdr.LedgerKey;
    switch (parts[0]) {
      case 'a':
        k = xdr.LedgerKey.account(new xdr.LedgerKeyAccount({ accountId: this.accountXdrId(parts[1]!) }));
        break;
      case 't':
        k = xdr.LedgerKey.trustline(
          new xdr.LedgerKeyTrustLine({
            accountId: this.accountXdrId(parts[1]!),
            asset: this.trustLineAsset(parts[2]!, parts[3]!),
          }),
        );
        break;
      case 'i':
        k = xdr.LedgerKey.contractData(
          new xdr.LedgerKeyContractData({
            contract: this.toScAddress(parts[1]!),
            key: INSTANCE_KEY,
            durability: xdr.ContractDataDurability.persistent,
          }),
        );
        break;
      case 'd':
        if (!keyVal) throw new Error(`the ScVal of contract data key ${id} is needed`);
        k = xdr.LedgerKey.contractData(
          new xdr.LedgerKeyContractData({
            contract: this.toScAddress(parts[1]!),
            key: keyVal,
            durability: parts[2] === 't' ? xdr.ContractDataDurability.temporary : xdr.ContractDataDurability.persistent,
          }),
        );
        break;
      default:
        throw new Error(`bad key ${id}`);
    }
    this.keyIds.set(k, id);
    return k;
  }

  /** `encode(o)`, remembered per object (`o` never changes). Shared: do not mutate. An entry that stateChanges
   *  encoded is not encoded again for the meta of the transaction that applies it (meta.ts metaXdr). */
  bytesOf<T extends object>(o: T, encode: (o: T) => Uint8Array): Uint8Array {
    let b = this.xdrBytes.get(o);
    if (b === undefined) this.xdrBytes.set(o, (b = encode(o)));
    return b;
  }

  /** The XDR of a value that never changes, remembered per object (bytesOf): a return value is encoded for
   *  simulateTransaction, the success hash and the meta. */
  xdrOf(v: { toXdr(): Uint8Array }): Uint8Array {
    return this.bytesOf(v, (x) => x.toXdr());
  }

  /** An entry's LedgerEntry XDR (bytesOf). */
  entryBytes(e: Entry): Uint8Array {
    return this.bytesOf(e, (x) => this.entryXdr(x).toXdr());
  }

  /** An entry's LedgerEntry XDR as base64, remembered per entry (entries are immutable records). */
  entryBase64(e: Entry): string {
    let b = this.base64.get(e);
    if (b === undefined) {
      b = asBuffer(this.entryBytes(e)).toString('base64');
      this.base64.set(e, b);
    }
    return b;
  }

  /** Instance storage as an ScMap, sorted by key XDR (the host keeps maps ordered; keys recur: bytesOf). */
  sortedMap(storage: InstanceEntry['storage']): xdr.ScMapEntry[] {
    return [...storage.values()]
      .map((e) => ({ e, k: this.xdrOf(e.key) }))
      .sort((a, b) => Buffer.compare(a.k, b.k))
      .map(({ e }) => new xdr.ScMapEntry({ key: e.key, val: e.val }));
  }

  /** A cached LedgerKey (cachedLedgerKey) as base64, remembered per key object. */
  keyBase64(id: string, keyVal: xdr.ScVal | undefined): string {
    const k = this.cachedLedgerKey(id, keyVal);
    let b = this.base64.get(k);
    if (b === undefined) {
      b = xdrBase64(k);
      this.base64.set(k, b);
    }
    return b;
  }

  /** ledgerKeyOf, through the LRU of LedgerKey objects (most keys recur call after call). Shared: do not mutate. */
  cachedLedgerKey(id: string, keyVal: xdr.ScVal | undefined): xdr.LedgerKey {
    let k = this.ledgerKeys.get(id);
    if (!k) {
      k = this.ledgerKeyOf(id, keyVal);
      this.ledgerKeys.set(id, k);
    }
    return k;
  }

  /** XDR LedgerKey of an entry. */
  ledgerKeyOfEntry(e: Entry): xdr.LedgerKey {
    return this.ledgerKeyOf(this.entryKeyId(e), e.t === 'data' ? e.key : undefined);
  }

  entryDataXdr(e: Entry): xdr.LedgerEntryData {
    switch (e.t) {
      case 'account':
        return xdr.LedgerEntryData.account(
          new xdr.AccountEntry({
            accountId: this.accountXdrId(e.id),
            balance: e.balance,
            seqNum: e.seqNum,
            numSubEntries: e.numSubEntries,
            inflationDest: null,
            flags: 0,
            homeDomain: '',
            thresholds: THRESHOLDS,
            signers: [],
            ext: xdr.AccountEntryExt.v0(),
          }),
        );
      case 'trustline':
        return xdr.LedgerEntryData.trustline(
          new xdr.TrustLineEntry({
            accountId: this.accountXdrId(e.account),
            asset: this.trustLineAsset(e.code, e.issuer),
            balance: e.balance,
            limit: e.limit,
            flags: e.flags,
            ext: xdr.TrustLineEntryExt.v0(),
          }),
        );
      case 'data':
        return xdr.LedgerEntryData.contractData(
          new xdr.ContractDataEntry({
            ext: xdr.ExtensionPoint.v0(),
            contract: this.toScAddress(e.contract),
            key: e.key,
            durability:
              e.durability === 'temporary'
                ? xdr.ContractDataDurability.temporary
                : xdr.ContractDataDurability.persistent,
            val: e.val,
          }),
        );
      case 'instance':
        return xdr.LedgerEntryData.contractData(
          new xdr.ContractDataEntry({
            ext: xdr.ExtensionPoint.v0(),
            contract: this.toScAddress(e.contract),
            key: INSTANCE_KEY,
            durability: xdr.ContractDataDurability.persistent,
            val: xdr.ScVal.scvContractInstance(
              new xdr.ScContractInstance({
                executable:
                  e.exec.kind === 'wasm'
                    ? xdr.ContractExecutable.contractExecutableWasm(Buffer.from(e.exec.hash, 'hex'))
                    : xdr.ContractExecutable.contractExecutableStellarAsset(),
                storage: e.storage.size ? this.sortedMap(e.storage) : null,
              }),
            ),
          }),
        );
    }
  }

  entryXdr(e: Entry): xdr.LedgerEntry {
    return new xdr.LedgerEntry({
      lastModifiedLedgerSeq: e.lm,
      data: this.entryDataXdr(e),
      ext: xdr.LedgerEntryExt.v0(),
    });
  }

  // ---- XDR → entries (state file) -----------------------------------------------------------------------------

  entryFromXdr(le: xdr.LedgerEntry, liveUntil: number): Entry {
    const lm = le.lastModifiedLedgerSeq;
    const d = le.data;
    switch (d.type) {
      case 'account': {
        const a = d.account;
        return {
          t: 'account',
          id: this.accountIdOf(a.accountId.ed25519.value),
          balance: a.balance,
          seqNum: a.seqNum,
          numSubEntries: a.numSubEntries,
          lm,
        };
      }
      case 'trustline': {
        const t = d.trustLine;
        const asset = t.asset;
        if (asset.type !== 'assetTypeCreditAlphanum4' && asset.type !== 'assetTypeCreditAlphanum12')
          throw new Error(`unsupported trustline asset ${asset.type}`);
        const arm = asset.type === 'assetTypeCreditAlphanum4' ? asset.alphaNum4 : asset.alphaNum12;
        return {
          t: 'trustline',
          account: this.accountIdOf(t.accountId.ed25519.value),
          code: assetCodeOf(arm.assetCode.value),
          issuer: this.accountIdOf(arm.issuer.ed25519.value),
          balance: t.balance,
          limit: t.limit,
          flags: t.flags,
          lm,
        };
      }
      case 'contractData': {
        const c = d.contractData;
        const contract = this.fromScAddress(c.contract);
        if (c.key.type === 'scvLedgerKeyContractInstance') {
          if (c.val.type !== 'scvContractInstance')
            throw new Error(`contract instance entry of ${contract} holds ${c.val.type}`);
          const inst = c.val.instance;
          const exe = inst.executable;
          const storage = new Map<string, { key: xdr.ScVal; val: xdr.ScVal }>();
          for (const me of inst.storage ?? []) storage.set(this.scValKey(me.key), { key: me.key, val: me.val });
          return {
            t: 'instance',
            contract,
            exec:
              exe.type === 'contractExecutableWasm'
                ? { kind: 'wasm', hash: asBuffer(exe.wasmHash.value).toString('hex') }
                : { kind: 'sac' },
            storage,
            lm,
            liveUntil,
          };
        }
        return {
          t: 'data',
          contract,
          durability: c.durability.name === 'temporary' ? 'temporary' : 'persistent',
          key: c.key,
          val: c.val,
          lm,
          liveUntil,
        };
      }
      default:
        throw new Error(`unsupported ledger entry ${d.type}`);
    }
  }
}
