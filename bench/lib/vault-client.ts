// What a consumer of the vault API does, with the package's typed client and its key: prepare an issue, sign
// it with the SDK's Keypair, submit it and get the final transaction id back. Bodies are typed by the spec.
import { Keypair, TransactionBuilder } from '@stellar/stellar-sdk';
import {
  createVaultClient,
  isApiError,
  prepareAndSubmit,
  type Signer,
  type VaultClient,
} from '../../src/client/index.ts';
import type { components } from '../../src/generated/vault-api.ts';

export type IssuePrepare = components['schemas']['IssuePrepare'];

export const KEY_HEADER = 'X-SVC-Key';

/** A credential the issue route accepts (JSON with the v2 context and a subject id). */
export function credentialJson(issuerDid: string, n: number): string {
  return JSON.stringify({
    '@context': ['https://www.w3.org/ns/credentials/v2'],
    type: ['VerifiableCredential', 'BenchCredential'],
    issuer: issuerDid,
    validFrom: '2026-07-01T00:00:00Z',
    credentialSubject: {
      id: 'did:ledger:testnet:ugzmhvhf6ydrqkj2jnog27upsa',
      serial: n,
      degree: { type: 'BachelorDegree', name: 'Bachelor of Science' },
    },
  });
}

export interface IssuerIdentity {
  keypair: Keypair;
  did: string;
  /** API key bound to the issuer's wallet. */
  key: string;
}

export function issueBody(issuer: IssuerIdentity, owner: string, vcId: string, n = 0): IssuePrepare {
  const account = issuer.keypair.publicKey();
  return {
    owner,
    vcId,
    vcData: credentialJson(issuer.did, n),
    issuer: account,
    issuerDid: issuer.did,
    sourcePublicKey: account,
  };
}

/** A wallet's signer: the SDK parses the XDR for the given passphrase and signs it with the keypair. */
export function keypairSigner(keypair: Keypair): Signer {
  return (xdr, passphrase) => {
    const tx = TransactionBuilder.fromXdr(xdr, passphrase);
    tx.sign(keypair);
    return tx.toXdr();
  };
}

/** The package's typed client with a key. */
export function vaultClient(baseUrl: string, key: string): VaultClient {
  return createVaultClient({ baseUrl, apiKey: key });
}

/** prepare → sign → submit → final with the typed client; returns the transaction id. */
export async function issueCycle(
  client: VaultClient,
  issuer: IssuerIdentity,
  owner: string,
  vcId: string,
  n = 0,
): Promise<string> {
  const { txId } = await prepareAndSubmit(
    client,
    '/contracts/vc/issue',
    issueBody(issuer, owner, vcId, n),
    keypairSigner(issuer.keypair),
  );
  return txId;
}

/** A short label of a failure for the error counts: the status and the spec's code. */
export function failureLabel(e: unknown): string {
  if (isApiError(e)) return `${e.status} ${e.code}`;
  if (e instanceof Error && e.name === 'TimeoutError') return 'client timeout';
  return e instanceof Error ? e.message.slice(0, 80) : String(e);
}

/** Error text for a case that could not run: status, code and message. */
export function failureText(e: unknown): string {
  if (isApiError(e)) return `${e.status} ${e.code}: ${e.message}`;
  return e instanceof Error ? e.message : String(e);
}
