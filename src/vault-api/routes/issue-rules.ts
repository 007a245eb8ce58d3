// Issue rules (vault-api.yaml VcData, IssuerDid):
// checked before any transaction is built, and again on the decoded arguments of a signed one.
import { ApiError, VaultErrors, type VaultAppDeps } from '../context.ts';
import { VcDataTooLargeError, encryptVcData, openVcData } from '../../crypto/envelope.ts';
import { didIdToBytes, parseDid } from '../../did/index.ts';
import { inspectJsonText } from '../../http/json-text.ts';

export const CREDENTIALS_V2_CONTEXT = 'https://www.w3.org/ns/credentials/v2';
export const MAX_VC_ID = 64;
export const MAX_VC_DATA = 10_000;
export const MAX_BATCH_SIZE = 5;

/** Where a credential sits in the request: `''` for vc/issue, `vcs[i].` in a batch. */
export type Where = '' | `vcs[${number}].`;

export const batchEntry = (i: number): Where => `vcs[${i}].`;

/** vcId and vcData lengths (the validator checks them too; this keeps the codes without it). */
export function checkLengths(where: Where, vcId: string, vcData: string): void {
  if (vcId.length === 0) throw VaultErrors.invalidRequest(`${where}vcId must not be empty`);
  // The contract counts the id in UTF-8 bytes (chain-abi: vc_id ≤ 64): an id of 64 non-ASCII characters is
  // refused here with its own code, not by the chain as input_too_long.
  if (vcId.length > MAX_VC_ID || Buffer.byteLength(vcId, 'utf8') > MAX_VC_ID) {
    throw new ApiError(
      `${where}vcId_too_long`,
      `${where}vcId is longer than ${MAX_VC_ID} bytes of UTF-8 (ASCII characters take one byte, others two to four)`,
    );
  }
  // Characters as JSON Schema counts them (code points): the spec's maxLength and this check agree.
  if (vcData.length > MAX_VC_DATA && codePoints(vcData) > MAX_VC_DATA) {
    throw new ApiError(`${where}vcData_too_long`, `${where}vcData is longer than ${MAX_VC_DATA} characters`);
  }
}

const clipPointer = (p: string): string => JSON.stringify(p.length > 80 ? `${p.slice(0, 80)}…` : p);

function codePoints(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

export function checkBatchSize(n: number): void {
  if (n < 1 || n > MAX_BATCH_SIZE)
    throw VaultErrors.batchTooLarge(`vcs must hold 1 to ${MAX_BATCH_SIZE} credentials, got ${n}`);
}

/**
 * vcData is an I-JSON text (RFC 7493: no repeated member name, no lone surrogate; what a verifier and JCS
 * read as the document) of a JSON object whose `@context` includes the credentials v2 context and which
 * names its holder in `credentialSubject.id` (an array of subjects: every one needs an id). Else 400
 * vcData_invalid; in a batch the message names the entry (the code stays `vcData_invalid`, as vault-api.yaml
 * lists it).
 */
export function checkVcData(where: Where, vcData: string): void {
  const invalid = (why: string) => VaultErrors.vcDataInvalid(`${where}vcData ${why}`);
  let doc: unknown;
  try {
    doc = JSON.parse(vcData);
  } catch {
    throw invalid('is not JSON');
  }
  // The stored text is what the holder presents: one reader must not see another credential than the next
  // (a repeated name), and UTF-8 cannot carry a lone surrogate (the vault would hold U+FFFD instead).
  const found = inspectJsonText(vcData, 1);
  if (found?.loneSurrogateAt !== undefined) {
    throw invalid(
      `is not I-JSON: the string at ${clipPointer(found.loneSurrogateAt)} holds a lone surrogate escape (\\ud800-\\udfff without its pair)`,
    );
  }
  if (found && found.duplicateMembers.length > 0) {
    throw invalid(
      `is not I-JSON: the member ${clipPointer(found.duplicateMembers[0]!)} appears twice, and readers disagree on which one counts`,
    );
  }
  if (!isObject(doc)) throw invalid('must be a JSON object');
  const ctx = doc['@context'];
  const contexts = Array.isArray(ctx) ? ctx : [ctx];
  if (!contexts.includes(CREDENTIALS_V2_CONTEXT)) throw invalid(`@context must include ${CREDENTIALS_V2_CONTEXT}`);
  const subject = doc['credentialSubject'];
  const subjects = Array.isArray(subject) ? subject : [subject];
  const hasIds =
    subjects.length > 0 && subjects.every((s) => isObject(s) && typeof s['id'] === 'string' && s['id'].length > 0);
  if (!hasIds) throw invalid('must contain credentialSubject.id, the holder DID');
}

/**
 * A vault's DID URI may use any method, but a `did:ledger` DID must name this network: a vault on testnet
 * naming a mainnet DID points at a document its readers cannot resolve on this chain. Same code as the
 * issuer DID (vault-api.yaml x-error-codes issuerDid_network_mismatch, decision).
 */
export function checkDidUriNetwork(deps: VaultAppDeps, didUri: string): void {
  const m = /^did:ledger:([^:]*):/.exec(didUri);
  const network = deps.profile.network;
  if (m && m[1] !== network) {
    throw VaultErrors.issuerDidNetworkMismatch(
      `didUri is a did:ledger DID of ${m[1] || 'no network'} but this service runs on ${network}`,
    );
  }
}

/**
 * The issuer DID: `did:ledger` of this network, registered, not deactivated, controlled by the issuer,
 * and holding at least one assertionMethod key (docs/did-resolver.md "Record rules": an issuer has an
 * authentication key plus at least one assertionMethod key; a holder's DID, authentication only, cannot
 * issue). The record is read from this network's registry.
 */
export async function checkIssuerDid(deps: VaultAppDeps, issuerDid: string, issuer: string): Promise<void> {
  if (!issuerDid.startsWith('did:ledger:')) {
    throw VaultErrors.issuerDidInvalid(
      'issuerDid must be a did:ledger DID; did:pkh and bare addresses are not accepted',
    );
  }
  const parsed = parseDid(issuerDid);
  if (!parsed.ok) throw VaultErrors.issuerDidInvalid(`issuerDid is not a valid did:ledger DID: ${parsed.message}`);
  const network = deps.profile.network;
  if (parsed.value.network !== network) {
    throw VaultErrors.issuerDidNetworkMismatch(
      `issuerDid belongs to ${parsed.value.network} but this service runs on ${network}`,
    );
  }
  const entry = await deps.chain.registry.get(didIdToBytes(parsed.value.didId));
  if (!entry) throw VaultErrors.issuerDidNotFound(`issuerDid ${issuerDid} is not registered on ${network}`);
  if (entry.record.deactivated) throw VaultErrors.issuerDidDeactivated(`issuerDid ${issuerDid} is deactivated`);
  if (entry.record.controller !== issuer) {
    throw VaultErrors.issuerDidControllerMismatch('the issuer DID controller does not match the signing issuer');
  }
  if (entry.record.assertionMethod.length === 0) {
    throw VaultErrors.issuerDidInvalid(
      `issuerDid ${issuerDid} has no assertionMethod key, so it cannot issue credentials; add one to its record (resolver: POST /v1/dids/stellar/{did}/update)`,
    );
  }
}

/**
 * Encrypts a checked vcData for (owner, vcId), recording the issuing wallet (issuer access is judged by it
 * later); an envelope over the on-chain limit is 400 vcData_ciphertext_too_long.
 */
export function sealVcData(
  deps: VaultAppDeps,
  where: Where,
  c: { owner: string; vcId: string; vcData: string; issuer: string },
): string {
  try {
    return encryptVcData(deps.keyring, { owner: c.owner, vcId: c.vcId, plaintext: c.vcData, issuer: c.issuer });
  } catch (e) {
    if (e instanceof VcDataTooLargeError) {
      throw VaultErrors.vcDataCiphertextTooLong(
        `${where}vcData encrypts to ${e.length} characters; the vault stores at most ${e.max}`,
      );
    }
    throw e;
  }
}

/**
 * At submit: the vcData of a signed transaction must be an envelope this service sealed for the vault's
 * owner and this vcId (so nothing reaches the chain unencrypted or bound elsewhere), and its plaintext
 * must satisfy the vcData rules. Answers the plaintext.
 */
export function checkSealedVcData(
  deps: VaultAppDeps,
  where: Where,
  c: { owner: string; vcId: string; data: string; issuer: string },
): string {
  let opened: { plaintext: string; issuer?: string };
  try {
    opened = openVcData(deps.keyring, { owner: c.owner, vcId: c.vcId, data: c.data });
  } catch {
    throw VaultErrors.vcDataInvalid(
      `${where}vcData in the signed transaction is not a payload this service encrypted for this owner and vcId`,
    );
  }
  // Prepared before the issuing wallet was recorded (cv1), or for the wallet that signs the issue.
  if (opened.issuer !== undefined && opened.issuer !== c.issuer) {
    throw VaultErrors.vcDataInvalid(
      `${where}vcData in the signed transaction was sealed for the issuer ${opened.issuer}, not ${c.issuer}`,
    );
  }
  const plaintext = opened.plaintext;
  checkVcData(where, plaintext);
  return plaintext;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
