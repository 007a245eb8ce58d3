// The proof of a credential given to the vault at issuance (vault-api.yaml issueVc): it must verify, made by the
// issuer the request names.
import { DID_KEY_PREFIX, verifyDataIntegrity } from '../did/index.ts';
import { VaultErrors, type VaultAppDeps } from './context.ts';
import { contextSource } from './json-ld-contexts.ts';
import type { Where } from './routes/issue-rules.ts';
import { issuerOf, requestResolver } from './verification-resolver.ts';

/**
 * Issuance: a vcData that carries a proof must verify, every proof by an assertionMethod key of issuerDid, or
 * of the credential's issuer when that is a did:key (the vault still records issuerDid). A credential that
 * names an issuer names one of those two. Without a proof it is accepted as before.
 */
export async function checkVcProof(deps: VaultAppDeps, where: Where, vcData: string, issuerDid: string): Promise<void> {
  let doc: Record<string, unknown>;
  try {
    doc = JSON.parse(vcData) as Record<string, unknown>;
  } catch {
    return; // checkVcData answers vcData_invalid
  }
  if (doc['proof'] === undefined) return;
  const refuse = (why: string) => VaultErrors.vcProofInvalid(`${where}vcData proof ${why}`);
  const issuer = issuerOf(doc);
  if (issuer !== undefined && issuer !== issuerDid && !issuer.startsWith(DID_KEY_PREFIX)) {
    throw refuse(`is for issuer ${issuer}, but issuerDid is ${issuerDid}`);
  }
  const signer = issuer?.startsWith(DID_KEY_PREFIX) ? issuer : issuerDid;
  const resolver = requestResolver(deps);
  const result = await verifyDataIntegrity({
    document: doc,
    resolve: resolver.resolve,
    now: new Date(deps.now()),
    expectedController: signer,
    contexts: contextSource(deps),
  });
  resolver.rethrow();
  if (!result.verified) {
    const e = result.errors[0];
    if (e?.reason === 'not_proof_signer')
      throw refuse(`was made by another key than an assertion key of ${signer}: ${e.message}`);
    throw refuse(`does not verify: ${e ? `${e.message} (${e.reason})` : 'no proof'}`);
  }
}
