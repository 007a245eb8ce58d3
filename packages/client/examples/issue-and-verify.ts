// A consumer of @credential-vault/client, as another project writes it. Needs Node >= 22.18 (it runs as
// TypeScript with Node's own type stripping; compiled with tsc it runs on Node >= 22.12) and an ESM project
// (`"type": "module"` in its package.json): the package is ESM only.
//
// An issuer (a Keypair this program holds) and a holder (a browser-style wallet:
// `signTransaction(xdr, {networkPassphrase})`) get funded accounts and API keys by wallet proof; the issuer
// registers its DID; the holder creates a vault; the issuer signs a credential (Data Integrity,
// eddsa-jcs-2022), with a status entry that names the vault, and issues it into the vault; a verifier checks
// it as the holder presents it (POST /credentials/verify, no API key: the entry lets the verifier read its
// status on the chain), and the holder checks it by reference to its own vault. Any failure throws: the
// process exits non-zero.
//
//   node issue-and-verify.ts --vault-url http://127.0.0.1:3000 --resolver-url http://127.0.0.1:3001 \
//     --friendbot-url http://127.0.0.1:8000/testnet/friendbot
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { Keypair, TransactionBuilder } from '@stellar/stellar-sdk';
import {
  createResolverClient,
  createVaultClient,
  encodeMultikey,
  generateDid,
  obtainApiKey,
  prepareAndSubmit,
  registerDid,
  signCredential,
  unwrap,
  verifyCredential,
  failures,
  type BrowserWallet,
} from '@credential-vault/client';

const { values } = parseArgs({
  options: {
    'vault-url': { type: 'string', default: 'http://127.0.0.1:3000' },
    'resolver-url': { type: 'string', default: 'http://127.0.0.1:3001' },
    'friendbot-url': { type: 'string', default: 'http://127.0.0.1:8000/testnet/friendbot' },
  },
});
const vaultUrl = values['vault-url'];
const resolverUrl = values['resolver-url'];
const friendbotUrl = values['friendbot-url'];

/** A new account, funded by the network's friendbot (the simulator's; on testnet, the network's). */
async function fundedAccount(): Promise<Keypair> {
  const keypair = Keypair.random();
  const res = await fetch(`${friendbotUrl}?addr=${keypair.publicKey()}`);
  if (!res.ok) throw new Error(`friendbot: HTTP ${res.status} ${await res.text()}`);
  return keypair;
}

/** Stands in for Freighter or Stellar Wallets Kit in this Node program: the key stays inside the wallet. */
function walletHolding(keypair: Keypair): BrowserWallet {
  return {
    async signTransaction(xdr, { networkPassphrase }) {
      const tx = TransactionBuilder.fromXDR(xdr, networkPassphrase);
      tx.sign(keypair);
      return { signedTxXdr: tx.toXDR() };
    },
  };
}

const vault = createVaultClient({ baseUrl: vaultUrl });
const resolver = createResolverClient({ baseUrl: resolverUrl });
const config = unwrap(await vault.GET('/config'));
console.log(`1. vault API ${vaultUrl}: ${config.networkType}`);

const issuer = await fundedAccount();
const holderKeypair = await fundedAccount();
const holder = { address: holderKeypair.publicKey(), wallet: walletHolding(holderKeypair) };
console.log(`2. funded issuer ${issuer.publicKey()} and holder ${holder.address}`);

// API keys by wallet proof: the issuer signs the challenge with its Keypair, the holder with its wallet.
const issuerKey = await obtainApiKey(vault, { account: issuer.publicKey(), sign: issuer });
const holderKey = await obtainApiKey(vault, { account: holder.address, sign: holder.wallet });
const asIssuer = createVaultClient({ baseUrl: vaultUrl, apiKey: issuerKey.key });
const asHolder = createVaultClient({ baseUrl: vaultUrl, apiKey: holderKey.key });
console.log(`3. API keys ${issuerKey.key_id} (issuer) and ${holderKey.key_id} (holder)`);

// The issuer's DID, controlled by its account, with its Ed25519 key for assertions (#assert-1).
const { did: issuerDid } = generateDid({ network: config.networkType });
const issuerKeyRef = { publicKeyMultibase: encodeMultikey('Ed25519', issuer.rawPublicKey()) };
await registerDid(
  resolver,
  {
    did: issuerDid,
    sourcePublicKey: issuer.publicKey(),
    record: {
      controller: issuer.publicKey(),
      authentication: [issuerKeyRef],
      assertionMethod: [issuerKeyRef],
      keyAgreement: [],
      services: [],
    },
  },
  issuer,
);
console.log(`4. registered ${issuerDid}`);

// Idempotency-Key goes on the submit only (prepareAndSubmit sends it there): a prepare changes nothing.
const { did: holderDid } = generateDid({ network: config.networkType });
const created = await prepareAndSubmit(
  asHolder,
  '/contracts/vault/create',
  { owner: holder.address, didUri: holderDid, sourcePublicKey: holder.address },
  holder.wallet,
  { idempotencyKey: randomUUID() },
);
console.log(`5. holder's vault created (tx ${created.txId})`);

// The issuer signs where its key lives; the service never sees it. The status entry names the holder's vault
// (its address derives from the factory and the owner), so any verifier can read the status on the chain.
const vcId = `degree-${randomUUID()}`;
const holderVault = unwrap(
  await asHolder.GET('/contracts/vault/{owner}', { params: { path: { owner: holder.address } } }),
);
const credential = await signCredential({
  credential: {
    '@context': ['https://www.w3.org/ns/credentials/v2'],
    id: `urn:uuid:${randomUUID()}`,
    type: ['VerifiableCredential', 'UniversityDegreeCredential'],
    issuer: issuerDid,
    validFrom: new Date().toISOString(),
    credentialSubject: { id: holderDid, degree: { type: 'BachelorDegree', name: 'Bachelor of Science' } },
  },
  ledgerVaultStatus: {
    network: config.networkType,
    vaultContract: holderVault.vault_address,
    vcId,
    contextUrl: `${vaultUrl}/contexts/ledger-vault/v1`,
  },
  verificationMethod: `${issuerDid}#assert-1`,
  signer: (bytes) => issuer.sign(Buffer.from(bytes)),
  created: new Date(),
});
const issued = await prepareAndSubmit(
  asIssuer,
  '/contracts/vc/issue',
  {
    owner: holder.address,
    vcId,
    vcData: JSON.stringify(credential),
    issuer: issuer.publicKey(),
    issuerDid,
    sourcePublicKey: issuer.publicKey(),
  },
  issuer,
  { idempotencyKey: randomUUID() },
);
console.log(`6. issued ${vcId}, signed by ${issuerDid}#assert-1 (tx ${issued.txId})`);

// A verifier: the credential as the holder presents it (no API key needed); its status entry adds the
// on-chain status and the vault's issuer access. Then the holder, by reference to its own vault (a stored
// credential is verified by its owner's key only). A credential that does not verify is a 400 with the same
// result, which verifyCredential returns rather than throws.
const presented = await verifyCredential(vault, { verifiableCredential: credential });
const byReference = await verifyCredential(asHolder, { owner: holder.address, vcId });
for (const [how, result] of [
  ['presented', presented],
  ['by reference', byReference],
] as const) {
  if (!result.verified) throw new Error(`${how}: not verified: ${JSON.stringify(failures(result))}`);
}
const res = presented.results ?? {};
const checks = [
  `proof ${res.proof?.every((p) => p.verified) ? 'passed' : 'failed'}`,
  `credentialStatus ${res.credentialStatus?.map((s) => s.status).join('/') || 'not checked'}`,
  `issuerAllowed ${res.issuerAllowed?.outcome}`,
].join(', ');
console.log(`7. verified ${vcId}: ${checks} (presented); by reference: verified ${byReference.verified}`);
