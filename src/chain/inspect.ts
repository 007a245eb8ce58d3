// Decodes a signed transaction for the safe-submit checks (docs/vault-api.md "Writes: prepare, sign, submit"): what
// it invokes, with which arguments, who authorized it and who signed it. Typed decoders let routes check semantic
// arguments without touching ScVals; each refuses a call of another function with `tx_operation_mismatch`.
import { createHash, createPublicKey, verify as verifySignature, type KeyObject } from 'node:crypto';
import {
  Address,
  FeeBumpTransaction,
  MuxedAccount,
  StrKey,
  Transaction,
  TransactionBuilder,
  xdr,
} from '@stellar/stellar-sdk';
import { remembered, type ChainCaches, type Signer } from './caches.ts';
import { CodecError, fromOption, toAddress, toBigInt, toBytes, toStr, toU32, toVec } from './codec.ts';
import { ChainError, errorText } from './errors.ts';
import { decodeDidRecordInput } from './registry.ts';
import type { DidRecordInput } from '../did/types.ts';
import type { AuthEntrySummary, Invocation } from './types.ts';

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

const invalid = (message: string) => new ChainError('tx_invalid', 400, message);
export const mismatch = (message: string) => new ChainError('tx_operation_mismatch', 400, message);

/** Parses a base64 envelope under `passphrase`; tx_invalid when it is not a transaction. */
export function parseEnvelope(envelopeXdr: string, passphrase: string): Transaction | FeeBumpTransaction {
  if (typeof envelopeXdr !== 'string' || envelopeXdr.length === 0 || !BASE64.test(envelopeXdr.trim())) {
    throw invalid('signedXdr is not base64');
  }
  try {
    return TransactionBuilder.fromXdr(envelopeXdr.trim(), passphrase);
  } catch (e) {
    throw invalid(`signedXdr is not a transaction envelope: ${errorText(e)}`);
  }
}

/**
 * What the transaction invokes. Requires exactly one InvokeHostFunction operation invoking a contract
 * (otherwise tx_operation_mismatch). `signedBy` lists the known accounts whose signature verifies
 * against the hash under `passphrase`: empty means no signature does — the transaction was signed for
 * another network, or by keys other than its accounts' (see `noValidSignature`).
 */
export function inspectTransaction(envelopeXdr: string, passphrase: string, signerCache?: SignerCache): Invocation {
  return inspectParsed(parseEnvelope(envelopeXdr, passphrase), signerCache);
}

/**
 * tx_invalid for a signed transaction none of whose signatures verifies under this network's passphrase.
 * A signature does not say which network it was made for, so the message names both causes and the
 * account whose signature was expected.
 */
export function noValidSignature(inv: Pick<Invocation, 'source'>, passphrase: string): ChainError {
  return invalid(
    `no signature on the transaction verifies for its source account ${inv.source} under this network's passphrase ` +
      `("${passphrase}"): it was signed for another network, or by a key other than ${inv.source}'s`,
  );
}

/** `signerCache`: the chain's cache of accounts' keys (src/chain/caches.ts); without one, each key is made anew. */
export function inspectParsed(parsed: Transaction | FeeBumpTransaction, signerCache?: SignerCache): Invocation {
  const tx = parsed instanceof FeeBumpTransaction ? parsed.innerTransaction : parsed;
  if (tx.operations.length !== 1) throw mismatch(`expected one operation, found ${tx.operations.length}`);
  const op = tx.operations[0]!;
  if (op.type !== 'invokeHostFunction') throw mismatch(`expected a contract invocation, found ${op.type}`);
  const func = op.func;
  if (func.type !== 'hostFunctionTypeInvokeContract')
    throw mismatch(`expected a contract invocation, found ${func.type}`);
  const call = func.invokeContract;
  const operationSource = baseAccount(op.source ?? tx.source);
  const auth = (op.auth ?? []).map((a) => summarize(a.credentials, operationSource));
  const authAddresses = unique(auth.map((a) => a.address));
  const signed = inspectSigners(
    parsed,
    signerCache,
    authAddresses.filter((a) => a.startsWith('G')),
  );
  return {
    ...signed,
    contractId: Address.fromScAddress(call.contractAddress).toString(),
    fn: call.functionName.toString(),
    args: call.args,
    authAddresses,
    auth,
  };
}

/**
 * Who a transaction of one operation is from and who signed it: its hash, source, operation source, fee-bump payer,
 * and those of them (and of `others`) whose signature verifies under the transaction's passphrase.
 */
export function inspectSigners(
  parsed: Transaction | FeeBumpTransaction,
  signerCache?: SignerCache,
  others: readonly string[] = [],
): Pick<Invocation, 'hash' | 'source' | 'operationSource' | 'feeSource' | 'signedBy'> {
  const outer = parsed instanceof FeeBumpTransaction ? parsed : undefined;
  const tx = outer ? outer.innerTransaction : (parsed as Transaction);
  const op = tx.operations[0];
  const source = baseAccount(tx.source);
  const operationSource = op?.source ? baseAccount(op.source) : source;
  const feeSource = outer ? baseAccount(outer.feeSource) : undefined;
  const signedBy = signers(tx, unique([source, operationSource, ...others]), signerCache);
  if (outer && feeSource)
    for (const s of signers(outer, [feeSource], signerCache)) if (!signedBy.includes(s)) signedBy.push(s);
  return {
    hash: Buffer.from((outer ?? tx).hash()).toString('hex'),
    source,
    operationSource,
    ...(feeSource ? { feeSource } : {}),
    signedBy,
  };
}

/** An auth entry's credentials: the address they authorize for (source-account: the operation source) and delegates. */
function summarize(c: xdr.SorobanCredentials, operationSource: string): AuthEntrySummary {
  switch (c.type) {
    case 'sorobanCredentialsSourceAccount':
      return { credentials: 'sourceAccount', address: operationSource, delegates: [] };
    case 'sorobanCredentialsAddress':
      return { credentials: 'address', address: Address.fromScAddress(c.address.address).toString(), delegates: [] };
    case 'sorobanCredentialsAddressV2':
      return {
        credentials: 'addressV2',
        address: Address.fromScAddress(c.addressV2.address).toString(),
        delegates: [],
      };
    case 'sorobanCredentialsAddressWithDelegates': {
      const w = c.addressWithDelegates;
      const delegates: string[] = [];
      const walk = (ds: readonly xdr.SorobanDelegateSignature[]): void => {
        for (const d of ds) {
          delegates.push(Address.fromScAddress(d.address).toString());
          walk(d.nestedDelegates);
        }
      };
      walk(w.delegates);
      return {
        credentials: 'addressWithDelegates',
        address: Address.fromScAddress(w.addressCredentials.address).toString(),
        delegates,
      };
    }
  }
}

/**
 * tx_invalid when an authorization entry carries an Ed25519 signature (the SDK's `[{public_key, signature}]`
 * form) that does not verify over that entry's own payload under `passphrase`. For ADDRESS_V2 and
 * ADDRESS_WITH_DELEGATES the payload names the entry's address (CAP-71), so a signature made for one address
 * and put under another fails here, whichever keys the two addresses share; a legacy ADDRESS payload names no
 * address, so only the network's own check (the key belongs to the address) binds it. Unsigned entries and
 * other signature forms (custom accounts) are left to the network.
 */
export function checkAuthSignatures(
  parsed: Transaction | FeeBumpTransaction,
  passphrase: string,
  signerCache?: SignerCache,
): void {
  const tx = parsed instanceof FeeBumpTransaction ? parsed.innerTransaction : parsed;
  const op = tx.operations[0];
  if (!op || op.type !== 'invokeHostFunction') return;
  let networkId: Buffer | undefined;
  for (const entry of op.auth ?? []) {
    const c = entry.credentials;
    if (c.type === 'sorobanCredentialsSourceAccount') continue;
    const creds =
      c.type === 'sorobanCredentialsAddress'
        ? c.address
        : c.type === 'sorobanCredentialsAddressV2'
          ? c.addressV2
          : c.addressWithDelegates.addressCredentials;
    const signed: { address: xdr.ScAddress; signature: xdr.ScVal }[] = [
      { address: creds.address, signature: creds.signature },
    ];
    if (c.type === 'sorobanCredentialsAddressWithDelegates') {
      const walk = (ds: readonly xdr.SorobanDelegateSignature[]): void => {
        for (const d of ds) {
          signed.push({ address: d.address, signature: d.signature });
          walk(d.nestedDelegates);
        }
      };
      walk(c.addressWithDelegates.delegates);
    }
    const pairs = signed.map((s) => ({ ...s, keys: ed25519Signatures(s.signature) })).filter((s) => s.keys.length > 0);
    if (pairs.length === 0) continue;
    networkId ??= createHash('sha256').update(passphrase).digest();
    const preimage =
      c.type === 'sorobanCredentialsAddress'
        ? xdr.HashIdPreimage.envelopeTypeSorobanAuthorization(
            new xdr.HashIdPreimageSorobanAuthorization({
              networkId,
              nonce: creds.nonce,
              signatureExpirationLedger: creds.signatureExpirationLedger,
              invocation: entry.rootInvocation,
            }),
          )
        : xdr.HashIdPreimage.envelopeTypeSorobanAuthorizationWithAddress(
            new xdr.HashIdPreimageSorobanAuthorizationWithAddress({
              networkId,
              nonce: creds.nonce,
              signatureExpirationLedger: creds.signatureExpirationLedger,
              address: creds.address,
              invocation: entry.rootInvocation,
            }),
          );
    const payload = createHash('sha256').update(preimage.toXdr()).digest();
    const entryAddress = Address.fromScAddress(creds.address).toString();
    for (const { address, keys } of pairs) {
      for (const { publicKey, signature } of keys) {
        if (verifies(keyObject(publicKey, signerCache), payload, signature)) continue;
        const signer = Address.fromScAddress(address).toString();
        const by = StrKey.encodeEd25519PublicKey(Buffer.from(publicKey));
        throw invalid(
          `the ${credentialName[c.type]} authorization entry for ${entryAddress} carries a signature by ${by}` +
            (signer !== entryAddress ? ` (delegate ${signer})` : '') +
            ` that does not verify over that entry under this network's passphrase: it was made for another address, ` +
            `network, nonce, expiration ledger or invocation`,
        );
      }
    }
  }
}

const credentialName = {
  sorobanCredentialsAddress: 'ADDRESS',
  sorobanCredentialsAddressV2: 'ADDRESS_V2',
  sorobanCredentialsAddressWithDelegates: 'ADDRESS_WITH_DELEGATES',
} as const;

/** The `[{public_key: Bytes(32), signature: Bytes(64)}]` signatures of a G account's credentials; [] for any other form. */
function ed25519Signatures(v: xdr.ScVal): { publicKey: Uint8Array; signature: Uint8Array }[] {
  if (v.type !== 'scvVec' || !v.vec) return [];
  const out: { publicKey: Uint8Array; signature: Uint8Array }[] = [];
  for (const item of v.vec) {
    if (item.type !== 'scvMap' || !item.map || item.map.length !== 2) return [];
    let publicKey: Uint8Array | undefined;
    let signature: Uint8Array | undefined;
    for (const e of item.map) {
      if (e.key.type !== 'scvSymbol' || e.val.type !== 'scvBytes') return [];
      const k = e.key.sym.toString();
      if (k === 'public_key') publicKey = e.val.bytes.value;
      else if (k === 'signature') signature = e.val.bytes.value;
    }
    if (!publicKey || publicKey.length !== 32 || !signature) return [];
    out.push({ publicKey, signature });
  }
  return out;
}

function signers(
  tx: Transaction | FeeBumpTransaction,
  candidates: string[],
  signerCache: SignerCache | undefined,
): string[] {
  const hash = Buffer.from(tx.hash());
  const out: string[] = [];
  for (const account of candidates) {
    const signer = signerOf(account, signerCache);
    const ok = tx.signatures.some(
      (s) => signer.hint.equals(s.hint.value) && verifies(signer.key, hash, s.signature.value),
    );
    if (ok) out.push(account);
  }
  return out;
}

// Ed25519 through node's crypto: the SDK's Keypair.verify is pure JavaScript, ~1 ms a signature; node's is
// ~20× cheaper. A key's KeyObject and signature hint are made once per account and kept in the chain's cache.
const SPKI_ED25519_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/** The chain's cache of accounts' keys (ChainCaches.signers). */
type SignerCache = ChainCaches['signers'];

function signerOf(account: string, signerCache: SignerCache | undefined): Signer {
  return remembered(signerCache, account, () => {
    const raw = StrKey.decodeEd25519PublicKey(account);
    return {
      key: createPublicKey({ key: Buffer.concat([SPKI_ED25519_PREFIX, raw]), format: 'der', type: 'spki' }),
      hint: Buffer.from(raw.subarray(raw.length - 4)),
    };
  });
}

/** A raw Ed25519 public key's KeyObject, through the chain's cache when given. */
const keyObject = (raw: Uint8Array, signerCache: SignerCache | undefined): KeyObject =>
  signerOf(StrKey.encodeEd25519PublicKey(Buffer.from(raw)), signerCache).key;

function verifies(key: KeyObject, message: Uint8Array, signature: Uint8Array): boolean {
  if (signature.length !== 64) return false;
  try {
    return verifySignature(null, message, key, signature);
  } catch {
    return false;
  }
}

function baseAccount(a: string): string {
  if (StrKey.isValidMed25519PublicKey(a)) return MuxedAccount.fromAddress(a, '0').baseAccount().accountId();
  return a;
}

const unique = <T>(xs: T[]): T[] => [...new Set(xs)];

// ---- Typed argument decoders ------------------------------------------------------------------------

/** Checks the invoked function and arity, then decodes; any other shape is tx_operation_mismatch. */
function decode<T>(inv: Invocation, fn: string, arity: number, dec: (a: xdr.ScVal[]) => T): T {
  if (inv.fn !== fn) throw mismatch(`transaction invokes ${inv.fn}, expected ${fn}`);
  if (inv.args.length !== arity) throw mismatch(`${fn} takes ${arity} arguments, transaction has ${inv.args.length}`);
  try {
    return dec(inv.args);
  } catch (e) {
    if (e instanceof CodecError || e instanceof TypeError)
      throw mismatch(`${fn} arguments do not decode: ${e.message}`);
    throw e;
  }
}

const at = (a: xdr.ScVal[], i: number): xdr.ScVal => a[i]!;

export interface IssueArgs {
  vcId: string;
  vcData: string;
  vaultContract: string;
  issuer: string;
  issuerDid: string;
}
export const decodeIssueArgs = (inv: Invocation): IssueArgs =>
  decode(inv, 'issue', 5, (a) => ({
    vcId: toStr(at(a, 0)),
    vcData: toStr(at(a, 1)),
    vaultContract: toAddress(at(a, 2)),
    issuer: toAddress(at(a, 3)),
    issuerDid: toStr(at(a, 4)),
  }));

export interface BatchIssueArgs {
  issuer: string;
  vaultContract: string;
  issuerDid: string;
  vcs: { vcId: string; vcData: string }[];
}
export const decodeBatchIssueArgs = (inv: Invocation): BatchIssueArgs =>
  decode(inv, 'batch_issue', 4, (a) => ({
    issuer: toAddress(at(a, 0)),
    vaultContract: toAddress(at(a, 1)),
    issuerDid: toStr(at(a, 2)),
    vcs: toVec(at(a, 3)).map((t) => {
      const pair = toVec(t);
      if (pair.length !== 2) throw new CodecError('expected (vc_id, vc_data)');
      return { vcId: toStr(pair[0]!), vcData: toStr(pair[1]!) };
    }),
  }));

export const decodeRevokeArgs = (inv: Invocation): { vcId: string; date: string } =>
  decode(inv, 'revoke', 2, (a) => ({ vcId: toStr(at(a, 0)), date: toStr(at(a, 1)) }));

export const decodeDenyIssuerArgs = (inv: Invocation): { issuer: string } =>
  decode(inv, 'deny_issuer', 1, (a) => ({ issuer: toAddress(at(a, 0)) }));

export const decodeAllowIssuerArgs = (inv: Invocation): { issuer: string } =>
  decode(inv, 'allow_issuer', 1, (a) => ({ issuer: toAddress(at(a, 0)) }));

export const decodeSetVaultDidArgs = (inv: Invocation): { didUri: string } =>
  decode(inv, 'set_vault_did', 1, (a) => ({ didUri: toStr(at(a, 0)) }));

export const decodeSetVaultAdminArgs = (inv: Invocation): { newAdmin: string } =>
  decode(inv, 'set_vault_admin', 1, (a) => ({ newAdmin: toAddress(at(a, 0)) }));

export const decodeRevokeVaultArgs = (inv: Invocation): Record<string, never> =>
  decode(inv, 'revoke_vault', 0, () => ({}));

export const decodePushArgs = (inv: Invocation): { vcId: string; destVault: string } =>
  decode(inv, 'push', 2, (a) => ({ vcId: toStr(at(a, 0)), destVault: toAddress(at(a, 1)) }));

/** userSalt as 64 lowercase hex characters. */
export interface DeployArgs {
  owner: string;
  didUri: string;
  userSalt: string;
}
export const decodeDeployArgs = (inv: Invocation): DeployArgs =>
  decode(inv, 'deploy', 3, (a) => ({ owner: toAddress(at(a, 0)), didUri: toStr(at(a, 1)), userSalt: salt(at(a, 2)) }));

export interface DeploySponsoredArgs extends DeployArgs {
  deployer: string;
}
export const decodeDeploySponsoredArgs = (inv: Invocation): DeploySponsoredArgs =>
  decode(inv, 'deploy_sponsored', 4, (a) => ({
    deployer: toAddress(at(a, 0)),
    owner: toAddress(at(a, 1)),
    didUri: toStr(at(a, 2)),
    userSalt: salt(at(a, 3)),
  }));

export interface RegisterArgs {
  didId: Buffer;
  record: DidRecordInput;
}
export const decodeRegisterArgs = (inv: Invocation): RegisterArgs =>
  decode(inv, 'register', 2, (a) => ({ didId: didId(at(a, 0)), record: decodeDidRecordInput(at(a, 1)) }));

export interface UpdateArgs {
  didId: Buffer;
  expectedVersion: number;
  record: DidRecordInput;
}
export const decodeUpdateArgs = (inv: Invocation): UpdateArgs =>
  decode(inv, 'update', 3, (a) => ({
    didId: didId(at(a, 0)),
    expectedVersion: toU32(at(a, 1)),
    record: decodeDidRecordInput(at(a, 2)),
  }));

export interface TransferControllerArgs {
  didId: Buffer;
  expectedVersion: number;
  newController: string;
}
export const decodeTransferControllerArgs = (inv: Invocation): TransferControllerArgs =>
  decode(inv, 'transfer_controller', 3, (a) => ({
    didId: didId(at(a, 0)),
    expectedVersion: toU32(at(a, 1)),
    newController: toAddress(at(a, 2)),
  }));

export interface DeactivateArgs {
  didId: Buffer;
  expectedVersion: number;
}
export const decodeDeactivateArgs = (inv: Invocation): DeactivateArgs =>
  decode(inv, 'deactivate', 2, (a) => ({ didId: didId(at(a, 0)), expectedVersion: toU32(at(a, 1)) }));

export interface SetFeeCustomArgs {
  issuer: string;
  amount: bigint;
  expiresAt?: bigint;
}
export const decodeSetFeeCustomArgs = (inv: Invocation): SetFeeCustomArgs =>
  decode(inv, 'set_fee_custom', 3, (a) => {
    const expiresAt = fromOption(at(a, 2), toBigInt);
    return {
      issuer: toAddress(at(a, 0)),
      amount: toBigInt(at(a, 1)),
      ...(expiresAt !== undefined ? { expiresAt } : {}),
    };
  });

export const decodeRemoveFeeCustomArgs = (inv: Invocation): { issuer: string } =>
  decode(inv, 'remove_fee_custom', 1, (a) => ({ issuer: toAddress(at(a, 0)) }));

function salt(v: xdr.ScVal): string {
  const b = toBytes(v);
  if (b.length !== 32) throw new CodecError('user_salt must be 32 bytes');
  return b.toString('hex');
}

function didId(v: xdr.ScVal): Buffer {
  const b = toBytes(v);
  if (b.length !== 16) throw new CodecError('did_id must be 16 bytes');
  return b;
}

/**
 * The invocation targets `contractId` and calls `fn`; refuses with tx_operation_mismatch otherwise.
 * A convenience for routes that check the target before decoding arguments.
 */
export function expectCall(inv: Invocation, { contractId, fn }: { contractId?: string; fn: string }): void {
  if (inv.fn !== fn) throw mismatch(`transaction invokes ${inv.fn}, expected ${fn}`);
  if (contractId !== undefined && inv.contractId !== contractId) {
    throw mismatch(`transaction invokes contract ${inv.contractId}, expected ${contractId}`);
  }
}
