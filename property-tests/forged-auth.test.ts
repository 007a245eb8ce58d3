// Ownership on the ledger: every write that needs someone else's signature, submitted by an attacker with a
// forged authorization entry, fails when applied and changes nothing; the same call with the genuine signature
// succeeds (so the forgery, not something else, is what failed). Transactions go the way a wallet sends them:
// simulateTransaction → assemble → sign → sendTransaction → getTransaction over the simulator's JSON-RPC.
// Every (write × forgery × credential type) runs: the table is small and each is a distinct way to steal. The
// simulator runs Protocol 28, so the victim's entry is sent as legacy ADDRESS, ADDRESS_V2 or
// ADDRESS_WITH_DELEGATES (CAP-71), each with its own payload.
import { Account, hash, Keypair, Operation, rpc, TransactionBuilder, xdr } from '@stellar/stellar-sdk';
import { describe, expect, it } from 'vitest';
import { address, bytes, i128, str, u32 } from '../src/chain/codec.ts';
import { deriveVaultAddress } from '../src/chain/derive.ts';
import { actor, freshChain, SALTS, type Actor } from './harness.ts';
import { addressCredentialsOf, authPreimage, type AddressCredentialType } from '../simulator/core/auth.ts';
import { addressCreds, authOf, contractFnOf, withAuth } from '../simulator/core/testing.ts';
import { getVc, isVault, listDenied, listVcIds, quoteFee, vaultDid, verifyVc } from './vault-io.ts';

const owner = actor('forge/owner');
const issuer = actor('forge/issuer');
const controller = actor('forge/controller');
const eve = actor('forge/eve');
const probe = actor('forge/probe'); // never an admin: its calls only reveal who must sign
const chain = freshChain('testnet', [owner, issuer, controller, eve, probe]);
const info = chain.info;
const operator: Actor = { name: 'operator', kp: Keypair.fromSecret(info.admin.secret), id: info.admin.publicKey };
const v0 = chain.deployVault(owner, SALTS[0]!);
const v1 = chain.deployVault(owner, SALTS[1]!);
const DID = Buffer.alloc(16, 0x42);
const unsalted = deriveVaultAddress({
  networkPassphrase: info.passphrase,
  factoryId: info.factoryId,
  owner: owner.id,
  userSalt: SALTS[2]!,
});

function didRecord(who: string): xdr.ScVal {
  const m = (k: string, v: xdr.ScVal) => new xdr.ScMapEntry({ key: xdr.ScVal.scvSymbol(k), val: v });
  return xdr.ScVal.scvMap([
    m('assertion_method', xdr.ScVal.scvVec([])),
    m('authentication', xdr.ScVal.scvVec([xdr.ScVal.scvMap([m('public_key_multibase', str('z6Mkforge'))])])),
    m('controller', address(who)),
    m('created_ledger', u32(0)),
    m('deactivated', xdr.ScVal.scvBool(false)),
    m('key_agreement', xdr.ScVal.scvVec([])),
    m('metadata_hash', xdr.ScVal.scvVoid()),
    m('metadata_uri', xdr.ScVal.scvVoid()),
    m('services', xdr.ScVal.scvVec([])),
    m('updated_ledger', u32(0)),
    m('version', u32(0)),
  ]);
}

function setup(): void {
  const ok = (r: ReturnType<typeof chain.call>, what: string) => {
    if (!r.ok) throw new Error(`${what}: ${r.error.split('\n')[0]}`);
  };
  ok(
    chain.call(issuer, v0, 'issue', [
      str('vc-1'),
      str('data'),
      address(v0),
      address(issuer.id),
      str('did:ledger:testnet:issuer'),
    ]),
    'issue',
  );
  ok(chain.call(controller, info.registryId, 'register', [bytes(DID), didRecord(controller.id)]), 'register');
}
setup();
const genesis = chain.net.snapshot();

/** A write that needs `victim`'s signature. */
interface Attack {
  name: string;
  victim: Actor;
  contractId: string;
  fn: string;
  args: xdr.ScVal[];
}
const ATTACKS: Attack[] = [
  { name: 'set_vault_did', victim: owner, contractId: v0, fn: 'set_vault_did', args: [str('did:ledger:testnet:eve')] },
  { name: 'set_vault_admin', victim: owner, contractId: v0, fn: 'set_vault_admin', args: [address(eve.id)] },
  { name: 'deny_issuer', victim: owner, contractId: v0, fn: 'deny_issuer', args: [address(issuer.id)] },
  { name: 'revoke_vault', victim: owner, contractId: v0, fn: 'revoke_vault', args: [] },
  { name: 'revoke', victim: owner, contractId: v0, fn: 'revoke', args: [str('vc-1'), str('2026-01-02')] },
  { name: 'push', victim: owner, contractId: v0, fn: 'push', args: [str('vc-1'), address(v1)] },
  {
    name: 'issue paid by the issuer',
    victim: issuer,
    contractId: v1,
    fn: 'issue',
    args: [str('vc-eve'), str('x'), address(v1), address(issuer.id), str('did:ledger:testnet:eve')],
  },
  {
    name: 'deploy for the owner',
    victim: owner,
    contractId: info.factoryId,
    fn: 'deploy',
    args: [address(owner.id), str('did:ledger:testnet:eve'), bytes(SALTS[2]!)],
  },
  { name: 'set_fee_standard', victim: operator, contractId: info.factoryId, fn: 'set_fee_standard', args: [i128(0)] },
  {
    name: 'did update',
    victim: controller,
    contractId: info.registryId,
    fn: 'update',
    args: [bytes(DID), u32(1), didRecord(eve.id)],
  },
  {
    name: 'did transfer_controller',
    victim: controller,
    contractId: info.registryId,
    fn: 'transfer_controller',
    args: [bytes(DID), u32(1), address(eve.id)],
  },
  {
    name: 'did deactivate',
    victim: controller,
    contractId: info.registryId,
    fn: 'deactivate',
    args: [bytes(DID), u32(1)],
  },
  {
    name: 'token transfer',
    victim: issuer,
    contractId: info.feeTokenId,
    fn: 'transfer',
    args: [address(issuer.id), address(eve.id), i128(1_000_000_000n)],
  },
];

const networkId = (passphrase: string): Uint8Array => hash(Buffer.from(passphrase));

/** The payload `e`'s credential type signs: legacy ADDRESS without the address, V2 and delegates with it. */
function payload(
  netId: Uint8Array,
  e: xdr.SorobanAuthorizationEntry,
  invocation: xdr.SorobanAuthorizedInvocation,
): Uint8Array {
  const any = addressCredentialsOf(e.credentials)!;
  return hash(authPreimage(any.type, netId, any.creds, invocation).toXdr());
}
const sigVal = (publicKey: Uint8Array, signature: Uint8Array): xdr.ScVal =>
  xdr.ScVal.scvVec([
    xdr.ScVal.scvMap([
      new xdr.ScMapEntry({ key: xdr.ScVal.scvSymbol('public_key'), val: xdr.ScVal.scvBytes(publicKey) }),
      new xdr.ScMapEntry({ key: xdr.ScVal.scvSymbol('signature'), val: xdr.ScVal.scvBytes(signature) }),
    ]),
  ]);

type CredType = AddressCredentialType;
const CRED_TYPES: readonly CredType[] = [
  'sorobanCredentialsAddress',
  'sorobanCredentialsAddressV2',
  'sorobanCredentialsAddressWithDelegates',
];

/** The entry with its address credentials re-typed (address, nonce, expiration and signature kept; no delegates). */
function retyped(e: xdr.SorobanAuthorizationEntry, type: CredType): xdr.SorobanAuthorizationEntry {
  const c = addressCreds(e);
  const credentials =
    type === 'sorobanCredentialsAddress'
      ? xdr.SorobanCredentials.sorobanCredentialsAddress(c)
      : type === 'sorobanCredentialsAddressV2'
        ? xdr.SorobanCredentials.sorobanCredentialsAddressV2(c)
        : xdr.SorobanCredentials.sorobanCredentialsAddressWithDelegates(
            new xdr.SorobanAddressCredentialsWithDelegates({ addressCredentials: c, delegates: [] }),
          );
  return new xdr.SorobanAuthorizationEntry({ credentials, rootInvocation: e.rootInvocation });
}

/** The entry with some of its address credentials' fields replaced, its credential type (and delegates) kept. */
function withCreds(
  e: xdr.SorobanAuthorizationEntry,
  patch: Partial<Pick<xdr.SorobanAddressCredentials, 'nonce' | 'signatureExpirationLedger' | 'signature'>>,
): xdr.SorobanAuthorizationEntry {
  const any = addressCredentialsOf(e.credentials)!;
  const c = any.creds;
  const creds = new xdr.SorobanAddressCredentials({
    address: c.address,
    nonce: c.nonce,
    signatureExpirationLedger: c.signatureExpirationLedger,
    signature: c.signature,
    ...patch,
  });
  const credentials =
    any.type === 'sorobanCredentialsAddress'
      ? xdr.SorobanCredentials.sorobanCredentialsAddress(creds)
      : any.type === 'sorobanCredentialsAddressV2'
        ? xdr.SorobanCredentials.sorobanCredentialsAddressV2(creds)
        : xdr.SorobanCredentials.sorobanCredentialsAddressWithDelegates(
            new xdr.SorobanAddressCredentialsWithDelegates({
              addressCredentials: creds,
              delegates: [...any.delegates],
            }),
          );
  return new xdr.SorobanAuthorizationEntry({ credentials, rootInvocation: e.rootInvocation });
}

/** `e` with expiration `until`, signed by `signer` over the payload of `invocation` (default: e's own) on `netId`. */
function signedBy(
  e: xdr.SorobanAuthorizationEntry,
  until: number,
  publicKey: Uint8Array,
  signer: Keypair,
  netId = networkId(info.passphrase),
  invocation = e.rootInvocation,
): xdr.SorobanAuthorizationEntry {
  const dated = withCreds(e, { signatureExpirationLedger: until });
  return withCreds(dated, { signature: sigVal(publicKey, signer.sign(payload(netId, dated, invocation))) });
}

/** Ways to fill the victim's address-credential entry without the victim signing this very authorization. */
type Forgery = (e: xdr.SorobanAuthorizationEntry, victim: Actor, latest: number) => xdr.SorobanAuthorizationEntry;
const FORGERIES: Record<string, Forgery> = {
  'no signature': (e, _v, latest) => withCreds(e, { signatureExpirationLedger: latest + 100 }),
  "attacker's own key": (e, _v, latest) => signedBy(e, latest + 100, eve.kp.rawPublicKey(), eve.kp),
  "victim's key, attacker's signature": (e, v, latest) => signedBy(e, latest + 100, v.kp.rawPublicKey(), eve.kp),
  "victim's signature from another network": (e, v, latest) =>
    signedBy(e, latest + 100, v.kp.rawPublicKey(), v.kp, networkId('Credential Vault Simulator Mainnet ; 2026')),
  "victim's signature, nonce changed after signing": (e, v, latest) => {
    const signed = signedBy(e, latest + 100, v.kp.rawPublicKey(), v.kp);
    return withCreds(signed, { nonce: addressCreds(signed).nonce ^ 1n });
  },
  "victim's signature of another call": (e, v, latest) => {
    const root = e.rootInvocation;
    const call = contractFnOf(root);
    const other = new xdr.SorobanAuthorizedInvocation({
      function: xdr.SorobanAuthorizedFunction.sorobanAuthorizedFunctionTypeContractFn(
        new xdr.InvokeContractArgs({ contractAddress: call.contractAddress, functionName: 'version', args: call.args }),
      ),
      subInvocations: root.subInvocations,
    });
    return signedBy(e, latest + 100, v.kp.rawPublicKey(), v.kp, networkId(info.passphrase), other);
  },
  "victim's signature, expired": (e, v, latest) => signedBy(e, latest - 1, v.kp.rawPublicKey(), v.kp),
  // CAP-71: a signature of the other payload kind (legacy ↔ address-bound) verifies nothing
  "victim's signature of the other credential type's payload": (e, v, latest) => {
    const dated = withCreds(e, { signatureExpirationLedger: latest + 100 });
    const any = addressCredentialsOf(dated.credentials)!;
    const other =
      any.type === 'sorobanCredentialsAddress' ? 'sorobanCredentialsAddressV2' : 'sorobanCredentialsAddress';
    const sig = v.kp.sign(
      hash(authPreimage(other, networkId(info.passphrase), any.creds, dated.rootInvocation).toXdr()),
    );
    return withCreds(dated, { signature: sigVal(v.kp.rawPublicKey(), sig) });
  },
};

/** CAP-71's replay: the victim's key signed the address-bound payload of another address (as that address's
 *  delegate, or an account sharing the key). Only address-bound types are protected: the legacy payload names no
 *  address, so for ADDRESS this "forgery" is the genuine signature, and the table leaves it out. */
const otherAddress: Forgery = (e, v, latest) => {
  const dated = withCreds(e, { signatureExpirationLedger: latest + 100 });
  const any = addressCredentialsOf(dated.credentials)!;
  const elsewhere = { ...any.creds, address: xdr.expectUnionVariant(address(v0), 'scvAddress').address };
  const sig = v.kp.sign(
    hash(authPreimage(any.type, networkId(info.passphrase), elsewhere, dated.rootInvocation).toXdr()),
  );
  return withCreds(dated, { signature: sigVal(v.kp.rawPublicKey(), sig) });
};

/** Simulates as the attacker, lets `fill` set the authorization entries, signs the envelope as the attacker and
 *  submits; the final status and the entries sent. */
async function submitAs(
  a: Attack,
  fill: (auth: xdr.SorobanAuthorizationEntry[]) => xdr.SorobanAuthorizationEntry[],
): Promise<{ status: string; envelope: string }> {
  const seq = chain.net.account(eve.id)!.seqNum.toString();
  const tx = new TransactionBuilder(new Account(eve.id, seq), { fee: '100', networkPassphrase: info.passphrase })
    .addOperation(Operation.invokeContractFunction({ contract: a.contractId, function: a.fn, args: a.args }))
    .setTimeout(300)
    .build();
  const sim = (await chain.net.rpc('simulateTransaction', {
    transaction: tx.toXdr(),
  })) as rpc.Api.RawSimulateTransactionResponse;
  if (sim.error) throw new Error(`${a.name}: simulation failed, the attack is not set up: ${sim.error.split('\n')[0]}`);
  const env = rpc.assembleTransaction(tx, rpc.parseRawSimulation(sim)).build().toEnvelope();
  return send(withAuth(env, fill(authOf(env))));
}

/** Signs `env` as the attacker (dropping other signatures) and submits it; the final status. */
async function send(env: xdr.TransactionEnvelope): Promise<{ status: string; envelope: string }> {
  const v1 = xdr.expectUnionVariant(env, 'envelopeTypeTx').v1;
  const unsigned = xdr.TransactionEnvelope.envelopeTypeTx(new xdr.TransactionV1Envelope({ tx: v1.tx, signatures: [] }));
  const signed = TransactionBuilder.fromXdr(unsigned.toXdr('base64'), info.passphrase);
  signed.sign(eve.kp);
  const envelope = signed.toXdr();
  const sent = (await chain.net.rpc('sendTransaction', { transaction: envelope })) as { status: string; hash: string };
  if (sent.status !== 'PENDING') return { status: sent.status, envelope };
  return {
    status: ((await chain.net.rpc('getTransaction', { hash: sent.hash })) as { status: string }).status,
    envelope,
  };
}

const isAddressEntry = (e: xdr.SorobanAuthorizationEntry): boolean => addressCredentialsOf(e.credentials) !== undefined;

/** `forge` applied to every address-credential entry (the victim's), sent as `type`. */
async function forgedCall(a: Attack, forge: Forgery, type: CredType): Promise<string> {
  const r = await submitAs(a, (auth) => {
    if (!auth.some(isAddressEntry)) throw new Error(`${a.name}: no address credentials to forge`);
    return auth.map((e) => (isAddressEntry(e) ? forge(retyped(e, type), a.victim, chain.net.ledger.latest.seq) : e));
  });
  return r.status;
}

/** Who must sign an admin write of `v` (its vault_admin), or the contract error (#4 once revoked); applies nothing. */
function adminProbe(v: string): string {
  const r = chain.call(probe, v, 'deny_issuer', [address(probe.id)]);
  if (r.ok) throw new Error('the probe became an admin');
  return r.authOf ?? `#${r.contractError}`;
}

/** Everything the attacks could change, except the attacker's own balance (it pays the transaction fees). */
function digest(): string {
  const vault = (v: string) => ({
    admin: adminProbe(v),
    did: vaultDid(chain, v),
    vc: getVc(chain, v, 'vc-1'),
    status: verifyVc(chain, v, 'vc-1'),
    eve: verifyVc(chain, v, 'vc-eve'),
    ids: listVcIds(chain, v, 0, 200),
    denied: listDenied(chain, v, 0, 200),
  });
  const did = chain.read(info.registryId, 'get', [bytes(DID)]).toXdr('base64');
  const balances = [owner, issuer, controller, operator].map((a) => chain.balance(info.feeTokenId, a.id).toString());
  return JSON.stringify(
    {
      v0: vault(v0),
      v1: vault(v1),
      did,
      quote: quoteFee(chain, issuer.id),
      balances,
      unsalted: isVault(chain, unsalted),
    },
    (_k, x) => (typeof x === 'bigint' ? x.toString() : x),
  );
}

const genuine: Forgery = (e, v, latest) => signedBy(e, latest + 100, v.kp.rawPublicKey(), v.kp);
/** Writes that can be sent twice in a row (the second would succeed with a fresh signature). */
const REPEATABLE = ['set_vault_did', 'deny_issuer', 'set_fee_standard', 'token transfer'];

const ADDRESS_BOUND: Record<string, Forgery> = { "victim's signature for another address (same key)": otherAddress };
const CASES = CRED_TYPES.flatMap((type) =>
  ATTACKS.flatMap((a) =>
    Object.keys({ ...FORGERIES, ...(type === 'sorobanCredentialsAddress' ? {} : ADDRESS_BOUND) }).map(
      (f) => [type, a.name, f] as const,
    ),
  ),
);

describe('forged authorization (simulator at Protocol 28, over JSON-RPC)', () => {
  it.each(CASES)('%s: %s with %s fails on the ledger and changes nothing', async (type, attackName, forgeryName) => {
    chain.reset(genesis);
    const attack = ATTACKS.find((a) => a.name === attackName)!;
    const before = digest();
    expect(await forgedCall(attack, (FORGERIES[forgeryName] ?? ADDRESS_BOUND[forgeryName])!, type)).toBe('FAILED');
    expect(digest()).toBe(before);
    // control: with the victim's genuine signature the same call goes through
    const genuine = chain.call(eve, attack.contractId, attack.fn, attack.args, [attack.victim]);
    expect(genuine.ok ? 'SUCCESS' : genuine.error.split('\n')[0]).toBe('SUCCESS');
    expect(digest()).not.toBe(before);
  });

  it.each(CRED_TYPES.flatMap((type) => REPEATABLE.map((a) => [type, a] as const)))(
    "%s: %s: replaying the victim's genuine authorization entry fails (single-use nonce)",
    async (type, attackName) => {
      chain.reset(genesis);
      const attack = ATTACKS.find((a) => a.name === attackName)!;
      const first = await submitAs(attack, (auth) => {
        return auth.map((e) =>
          isAddressEntry(e) ? genuine(retyped(e, type), attack.victim, chain.net.ledger.latest.seq) : e,
        );
      });
      expect(first.status).toBe('SUCCESS');
      const after = digest();
      // the same transaction (footprint, auth entries and all) under the attacker's next sequence number
      const tx = xdr.expectUnionVariant(xdr.TransactionEnvelope.fromXdr(first.envelope, 'base64'), 'envelopeTypeTx').v1
        .tx;
      const resequenced = new xdr.Transaction({ ...tx, seqNum: chain.net.account(eve.id)!.seqNum + 1n });
      const replay = await send(
        xdr.TransactionEnvelope.envelopeTypeTx(new xdr.TransactionV1Envelope({ tx: resequenced, signatures: [] })),
      );
      expect(replay.status).toBe('FAILED');
      expect(digest()).toBe(after);
    },
  );
});
