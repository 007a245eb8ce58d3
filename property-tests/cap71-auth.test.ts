// CAP-71 authorization across the protocol line (docs/chain-abi.md "Protocol line"): a relayer submits the owner's
// `set_vault_did` (its arguments name no address, so only the signature payload binds the signer) at Protocol 26,
// 27 or 28. Random choices: the credential type sent (ADDRESS, ADDRESS_V2, ADDRESS_WITH_DELEGATES), who signs,
// which payload kind is signed (legacy or address-bound), for which address, whether the request asks for upgraded
// auth, and whether the ledger closes before submission (the call is then run again instead of the simulation
// being applied). Model: simulation records ADDRESS_V2 at 27 and 28 only with useUpgradedAuth; V2 and delegate
// credentials before 27 make sendTransaction answer txMALFORMED; otherwise the write lands exactly when the owner
// signed the payload of the type sent, and for an address-bound payload the owner's own address.
import { Account, Address, hash, Operation, rpc, StrKey, TransactionBuilder, xdr } from '@stellar/stellar-sdk';
import fc from 'fast-check';
import { describe, it } from 'vitest';
import { str } from '../src/chain/codec.ts';
import { addressCredentialsOf, authPreimage, type AddressCredentialType } from '../simulator/core/auth.ts';
import { actor, expectEqual, freshChain, runParams, SALTS, type Chain } from './harness.ts';
import { vaultDid } from './vault-io.ts';

const owner = actor('cap71/owner');
const relayer = actor('cap71/relayer');
const eve = actor('cap71/eve');
const PROTOCOLS = [26, 27, 28] as const;
type Protocol = (typeof PROTOCOLS)[number];

interface World {
  chain: Chain;
  vault: string;
  genesis: string;
}
const worlds = new Map<Protocol, World>(
  PROTOCOLS.map((p) => {
    const chain = freshChain('testnet', [owner, relayer, eve], { protocol: p });
    const vault = chain.deployVault(owner, SALTS[0]!);
    return [p, { chain, vault, genesis: chain.net.snapshot() }];
  }),
);

const TYPES: readonly AddressCredentialType[] = [
  'sorobanCredentialsAddress',
  'sorobanCredentialsAddressV2',
  'sorobanCredentialsAddressWithDelegates',
];
const OTHER = new Address(StrKey.encodeContract(Buffer.alloc(32, 0x71))).toScAddress();

const sigVal = (publicKey: Uint8Array, signature: Uint8Array): xdr.ScVal =>
  xdr.ScVal.scvVec([
    xdr.ScVal.scvMap([
      new xdr.ScMapEntry({ key: xdr.ScVal.scvSymbol('public_key'), val: xdr.ScVal.scvBytes(publicKey) }),
      new xdr.ScMapEntry({ key: xdr.ScVal.scvSymbol('signature'), val: xdr.ScVal.scvBytes(signature) }),
    ]),
  ]);

function entryOf(
  type: AddressCredentialType,
  creds: xdr.SorobanAddressCredentials,
  invocation: xdr.SorobanAuthorizedInvocation,
): xdr.SorobanAuthorizationEntry {
  const credentials =
    type === 'sorobanCredentialsAddress'
      ? xdr.SorobanCredentials.sorobanCredentialsAddress(creds)
      : type === 'sorobanCredentialsAddressV2'
        ? xdr.SorobanCredentials.sorobanCredentialsAddressV2(creds)
        : xdr.SorobanCredentials.sorobanCredentialsAddressWithDelegates(
            new xdr.SorobanAddressCredentialsWithDelegates({ addressCredentials: creds, delegates: [] }),
          );
  return new xdr.SorobanAuthorizationEntry({ credentials, rootInvocation: invocation });
}

const scenario = fc.record({
  protocol: fc.constantFrom(...PROTOCOLS),
  upgraded: fc.constantFrom(undefined, true, false),
  sent: fc.constantFrom(...TYPES),
  // weighted towards the genuine signature, so landings are common enough to count
  signer: fc.oneof(
    { weight: 3, arbitrary: fc.constant('owner' as const) },
    { weight: 1, arbitrary: fc.constant('eve' as const) },
  ),
  payload: fc.oneof(
    { weight: 3, arbitrary: fc.constant('of the type sent' as const) },
    { weight: 1, arbitrary: fc.constantFrom('legacy' as const, 'address-bound' as const) },
  ),
  payloadAddress: fc.oneof(
    { weight: 3, arbitrary: fc.constant('own' as const) },
    { weight: 1, arbitrary: fc.constant('other' as const) },
  ),
  rerun: fc.boolean(),
  did: fc.stringMatching(/^did:ledger:testnet:[a-z0-9]{1,24}$/),
});

describe('CAP-71 authorization at Protocols 26 to 28', () => {
  it("records the protocol's credential type, and lands exactly the correctly bound owner signatures", async () => {
    const coverage = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const w = worlds.get(s.protocol)!;
        const { chain, vault } = w;
        chain.reset(w.genesis);
        const net = chain.net;
        const passphrase = net.info.passphrase;
        const acc = new Account(relayer.id, net.account(relayer.id)!.seqNum.toString());
        const tx = new TransactionBuilder(acc, { fee: '100', networkPassphrase: passphrase })
          .addOperation(
            Operation.invokeContractFunction({ contract: vault, function: 'set_vault_did', args: [str(s.did)] }),
          )
          .setTimeout(300)
          .build();
        const params = {
          transaction: tx.toXdr(),
          ...(s.upgraded === undefined ? {} : { useUpgradedAuth: s.upgraded }),
        };
        const sim = (await net.rpc('simulateTransaction', params)) as rpc.Api.RawSimulateTransactionResponse;
        if (sim.error) throw new Error(`simulation failed: ${sim.error.split('\n')[0]}`);
        const recorded = (sim.results?.[0]?.auth ?? []).map((a) => xdr.SorobanAuthorizationEntry.fromXdr(a, 'base64'));
        const asked = s.protocol >= 27 && s.upgraded === true;
        const wantRecorded = asked ? 'sorobanCredentialsAddressV2' : 'sorobanCredentialsAddress';
        expectEqual(
          'recorded credential types',
          recorded.map((e) => e.credentials.type),
          [wantRecorded],
        );

        // the entry as sent: the recorded address, nonce and invocation, signed as the scenario says
        const c = addressCredentialsOf(recorded[0]!.credentials)!.creds;
        const expiration = net.ledger.tick().seq + 100;
        const signedCreds = {
          nonce: c.nonce,
          signatureExpirationLedger: expiration,
          address: s.payloadAddress === 'own' ? c.address : OTHER,
        };
        const payload =
          s.payload === 'of the type sent'
            ? s.sent === 'sorobanCredentialsAddress'
              ? 'legacy'
              : 'address-bound'
            : s.payload;
        const kind = payload === 'legacy' ? 'sorobanCredentialsAddress' : 'sorobanCredentialsAddressV2';
        const signer = (s.signer === 'owner' ? owner : eve).kp;
        const sig = signer.sign(
          hash(authPreimage(kind, hash(Buffer.from(passphrase)), signedCreds, recorded[0]!.rootInvocation).toXdr()),
        );
        const creds = new xdr.SorobanAddressCredentials({
          address: c.address,
          nonce: c.nonce,
          signatureExpirationLedger: expiration,
          signature: sigVal(signer.rawPublicKey(), sig),
        });
        const entry = entryOf(s.sent, creds, recorded[0]!.rootInvocation);

        const built = rpc.assembleTransaction(tx, rpc.parseRawSimulation(sim));
        const op = tx.operations[0] as Operation.InvokeHostFunction;
        built.clearOperations().addOperation(Operation.invokeHostFunction({ func: op.func, auth: [entry] }));
        const signed = built.build();
        signed.sign(relayer.kp);
        if (s.rerun) net.closeLedger();
        const before = vaultDid(chain, vault);
        const sent = (await net.rpc('sendTransaction', { transaction: signed.toXdr() })) as {
          status: string;
          hash: string;
          errorResultXdr?: string;
        };

        const invalid = s.protocol < 27 && s.sent !== 'sorobanCredentialsAddress';
        const bound = s.sent !== 'sorobanCredentialsAddress';
        const lands =
          !invalid &&
          s.signer === 'owner' &&
          (payload === 'address-bound') === bound &&
          (payload === 'legacy' || s.payloadAddress === 'own');
        let outcome: string;
        if (sent.status === 'ERROR')
          outcome = `ERROR ${xdr.TransactionResult.fromXdr(sent.errorResultXdr!, 'base64').result.type}`;
        else outcome = ((await net.rpc('getTransaction', { hash: sent.hash })) as { status: string }).status;
        const want = invalid ? 'ERROR txMalformed' : lands ? 'SUCCESS' : 'FAILED';
        expectEqual(
          `P${s.protocol} ${s.sent} signed by ${s.signer} over the ${payload} payload (${s.payloadAddress} address)`,
          outcome,
          want,
        );
        expectEqual('vault DID', vaultDid(chain, vault), lands ? s.did : before);
        const k = `P${s.protocol} ${s.sent.replace('sorobanCredentials', '')} → ${want}`;
        coverage.set(k, (coverage.get(k) ?? 0) + 1);
      }),
      runParams('CAP-71 authorization', 400),
    );
    console.log(
      `[coverage] ${[...coverage]
        .sort()
        .map(([k, n]) => `${k}: ${n}`)
        .join(', ')}`,
    );
  });
});
