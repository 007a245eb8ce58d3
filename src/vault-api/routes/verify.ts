// The verification routes of the W3C VC API (vault-api.yaml verifyCredential, verifyPresentation,
// createChallenge) and the JSON-LD context of LedgerVaultStatusEntry (getLedgerVaultContext). The composition
// is in src/vault-api/verification*.ts; here: the request's parts, who may name a stored credential, and the
// status code of an answer. A key is optional on these routes (keyless callers are limited per client IP by
// the rate-limit middleware); naming a stored credential needs the owner's or an admin key.
import type { Request } from 'express';
import { Ed25519KeyCache, MemoryNonceStore } from '../../did/index.ts';
import { duplicateMembersOf } from '../../platform/body.ts';
import { ApiError, VaultErrors, peekAuth, type VaultAppDeps } from '../context.ts';
import { sameCredential, verifyCredential, type VaultReference, type VerifyCredentialInput } from '../verification.ts';
import {
  issueChallenge,
  verifyPresentation,
  type ChallengeStore,
  type VerifyPresentationInput,
} from '../verification-presentation.ts';
import { readSlot } from '../verification-status.ts';
import { LEDGER_VAULT_CONTEXT } from '../json-ld-contexts.ts';
import { isError } from '../verification-problems.ts';
import type { operations } from '../../generated/vault-api.ts';
import type { RouteTable } from '../../platform/app.ts';
import type { OperationHandler } from '../../platform/typed.ts';
import { duplicateProblems, presentationStructureProblems } from '../verification-structure.ts';
import { bodyOf, onVaults, optStr, vaultOf } from './contract-common.ts';

type GetLedgerVaultContext = operations['getLedgerVaultContext'];

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Repeated member names outside the credential or presentation: the request itself is ambiguous. */
function refuseDuplicatesOutside(req: Request, member: string): void {
  const outside = duplicateMembersOf(req).find((d) => d !== `/${member}` && !d.startsWith(`/${member}/`));
  if (outside !== undefined)
    throw VaultErrors.invalidRequest(`the body names the member ${JSON.stringify(outside)} twice`);
}

/**
 * The stored credential a request names by owner and vcId: only its owner's key (or an admin key) may name it, and
 * only the owner's may compare a presented credential with it.
 */
async function storedReference(
  deps: VaultAppDeps,
  req: Request,
  r: { owner: string; vcId: string; presented: unknown; body: Record<string, unknown> },
): Promise<VaultReference> {
  const { owner, vcId, presented, body: b } = r;
  const auth = peekAuth(req);
  if (!auth)
    throw VaultErrors.missingApiKey('verification by owner and vcId needs an API key; a presented credential does not');
  if (auth.role !== 'admin' && auth.wallet !== owner) {
    throw VaultErrors.forbidden(
      "owner must equal the wallet bound to the API key: a stored credential is verified by its owner's key (or an admin key); others verify the credential its holder presents",
    );
  }
  // Whether a presented credential equals the stored one is an answer about its content: the owner's only.
  if (presented !== undefined && auth.wallet !== owner) {
    throw VaultErrors.forbidden(
      "comparing a presented credential with a stored one needs the owner's key; an admin key verifies the stored credential by owner and vcId alone",
    );
  }
  const vault = vaultOf(deps, owner, optStr(b, 'userSalt'), optStr(b, 'vaultContract'));
  const read = await readSlot(deps, vault, vcId, owner);
  if (!read.ok)
    throw new ApiError(
      404,
      read.reason,
      read.reason === 'vault_not_found'
        ? 'no vault is deployed for this owner and userSalt'
        : `the vault holds no credential ${vcId}`,
    );
  const stored = read.slot.document;
  if (!stored) throw VaultErrors.vcDecryptionFailed(`credential ${vcId} cannot be decrypted by this service`);
  return {
    owner,
    vault,
    vcId,
    slot: read.slot,
    ...(presented !== undefined && !sameCredential(presented, stored) ? { notTheStoredCredential: true } : {}),
  };
}

/** The verification operations' handlers, by operationId. */
export function verifyRoutes(deps: VaultAppDeps): RouteTable<operations> {
  const challenges: ChallengeStore = deps.stores.nonces ?? new MemoryNonceStore({ now: deps.now });
  // Making Node's key of an Ed25519 public key costs more than verifying with it: issuers' keys are few.
  const keyCache = new Ed25519KeyCache();

  // The handlers take their body and answer through the generated operation types (src/platform/typed.ts).
  const verifyCredentialRoute: OperationHandler<operations['verifyCredential']> = async (req, res) => {
    const b = bodyOf(req);
    const presented = b.verifiableCredential;
    const owner = optStr(b, 'owner');
    const vcId = optStr(b, 'vcId');
    if ((owner === undefined) !== (vcId === undefined)) {
      throw VaultErrors.invalidRequest('a vault reference is owner and vcId together');
    }
    if (presented === undefined && owner === undefined) {
      throw VaultErrors.invalidRequest(
        'send verifiableCredential, or owner and vcId of a credential in your vault, or both',
      );
    }
    refuseDuplicatesOutside(req, 'verifiableCredential');
    const options: NonNullable<VerifyCredentialInput['options']> = isObject(b.options) ? b.options : {};

    const reference =
      owner !== undefined && vcId !== undefined
        ? await storedReference(deps, req, { owner, vcId, presented, body: b })
        : undefined;
    const credential = presented ?? reference!.slot.document!;
    const parsingProblems = duplicateProblems(duplicateMembersOf(req), '/verifiableCredential', 'credential');
    const result = await onVaults(deps, reference ? [{ vault: reference.vault }] : [], () =>
      verifyCredential(deps, { credential, options, parsingProblems, keyCache, ...(reference ? { reference } : {}) }),
    );
    const firstError = result.verified ? undefined : result.problemDetails?.find(isError);
    deps.metrics?.domain.verified(result.verified ? 'verified' : 'failed', firstError?.reason ?? 'none');
    // VCALM: a verification that completes with verified false is a 400 with the same body.
    res.status(result.verified ? 200 : 400).json(result);
  };

  const verifyPresentationRoute: OperationHandler<operations['verifyPresentation']> = async (req, res) => {
    const b = bodyOf(req);
    refuseDuplicatesOutside(req, 'verifiablePresentation');
    const input: VerifyPresentationInput = {
      presentation: b.verifiablePresentation,
      options: b.options,
      parsingProblems: duplicateProblems(duplicateMembersOf(req), '/verifiablePresentation', 'presentation'),
      keyCache,
    };
    // VCALM for this route: 200 whenever the verification completes, valid or not; a presentation that is
    // not I-JSON or not a presentation cannot be verified at all: 400, with the same body (its problems).
    const completes =
      input.parsingProblems!.length === 0 && presentationStructureProblems(input.presentation).length === 0;
    res.status(completes ? 200 : 400).json(await verifyPresentation(deps, challenges, input));
  };

  const createChallenge: OperationHandler<operations['createChallenge']> = async (_req, res) => {
    res.json({ challenge: await issueChallenge(deps, challenges) });
  };

  const getLedgerVaultContext: OperationHandler<GetLedgerVaultContext> = (_req, res) => {
    res.set('Cache-Control', 'public, max-age=86400');
    // Verifiers' JSON-LD processors run in web pages too (jsonld.js document loaders fetch with CORS).
    res.set('Access-Control-Allow-Origin', '*');
    res.type('application/ld+json');
    res.json(LEDGER_VAULT_CONTEXT);
  };

  return {
    verifyCredential: verifyCredentialRoute,
    verifyPresentation: verifyPresentationRoute,
    createChallenge,
    getLedgerVaultContext,
  };
}
