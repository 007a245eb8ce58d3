// The verification routes of the W3C VC API (vault-api.yaml verifyCredential, verifyPresentation,
// createChallenge) and the JSON-LD context of LedgerVaultStatusEntry (getLedgerVaultContext). The composition
// is in src/vault-api/verification*.ts; here: the request's parts, who may name a stored credential, and the
// status code of an answer. A key is optional on these routes (keyless callers are limited per client IP by
// the rate-limit middleware); naming a stored credential needs the owner's or an admin key.
import type { Request } from 'express';
import { Ed25519KeyCache } from '../../did/index.ts';
import { duplicateMembersOf } from '../../platform/body.ts';
import { clientIp } from '../../platform/rate-limit.ts';
import { createMemoryChallengeStore } from '../../stores/challenges.ts';
import type { ChallengeStore } from '../../stores/index.ts';
import { ApiError, type AuthContext, VaultErrors, peekAuth, type VaultAppDeps } from '../context.ts';
import { verifyCredential, type VerifyCredentialInput } from '../verification.ts';
import { sameCredential, type VaultReference } from '../verification-credential-status.ts';
import {
  CHALLENGE_TTL_MS,
  issueChallenge,
  verifyPresentation,
  type ChallengeClient,
  type VerifyPresentationInput,
} from '../verification-presentation.ts';
import { readSlot } from '../verification-status.ts';
import { LEDGER_VAULT_CONTEXT } from '../json-ld-contexts.ts';
import { isError } from '../verification-problems.ts';
import { canonicalizationFor } from '../keyless-rdf.ts';
import type { operations } from '../../generated/vault-api.ts';
import type { RouteTable } from '../../platform/app.ts';
import type { OperationHandler } from '../../platform/typed.ts';
import { duplicateProblems } from '../verification-structure.ts';
import { type Body, bodyOf, onVaults, optStr, vaultOf } from './contract-common.ts';

type GetLedgerVaultContext = operations['getLedgerVaultContext'];

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Repeated member names outside the credential or presentation: the request itself is ambiguous. */
function refuseDuplicatesOutside(req: Request, member: string): void {
  const outside = duplicateMembersOf(req).find((d) => d !== `/${member}` && !d.startsWith(`/${member}/`));
  if (outside !== undefined)
    throw VaultErrors.invalidRequest(`the body names the member ${JSON.stringify(outside)} twice`);
}

/**
 * Who sends the request, as a challenge is bound to it: its API key, else its address, grouped as the per-IP
 * limit groups it (an IPv6 client by its `CV_IPV6_CLIENT_PREFIX` prefix).
 */
function challengeClient(deps: VaultAppDeps, req: Request): ChallengeClient {
  const auth = peekAuth(req);
  return auth ? { keyId: auth.keyId } : { ip: clientIp(req, deps.limits.ipv6ClientPrefix) };
}

/** POST /challenges: one kept for the client that asks, or 429 past its quota (nothing is evicted for it). */
function challengeRoute(
  deps: VaultAppDeps,
  challenges: ChallengeStore,
): OperationHandler<operations['createChallenge']> {
  return async (req, res) => {
    const issued = await issueChallenge(deps, challenges, challengeClient(deps, req));
    if ('refused' in issued) {
      // Every challenge the client holds has expired by then.
      res.set('Retry-After', String(CHALLENGE_TTL_MS / 1000));
      throw VaultErrors.challengeQuotaExceeded(issued.refused);
    }
    res.json({ challenge: issued.challenge });
  };
}

/**
 * Who may name a stored credential: a key (a presented credential needs none), the owner's wallet or an admin
 * key; comparing a presented credential with the stored one is an answer about its content, the owner's only.
 */
export function checkReferenceAccess(auth: AuthContext | undefined, owner: string, presenting: boolean): void {
  if (!auth) {
    throw VaultErrors.missingApiKey('verification by owner and vcId needs an API key; a presented credential does not');
  }
  if (auth.role !== 'admin' && auth.wallet !== owner) {
    throw VaultErrors.forbidden(
      "owner must equal the wallet bound to the API key: a stored credential is verified by its owner's key (or an admin key); others verify the credential its holder presents",
    );
  }
  if (presenting && auth.wallet !== owner) {
    throw VaultErrors.forbidden(
      "comparing a presented credential with a stored one needs the owner's key; an admin key verifies the stored credential by owner and vcId alone",
    );
  }
}

/** The stored credential that owner and vcId name, read from the owner's vault, and whether `presented` differs. */
async function storedReference(
  deps: VaultAppDeps,
  b: Body,
  owner: string,
  vcId: string,
  presented: unknown,
): Promise<VaultReference> {
  const vault = vaultOf(deps, owner, optStr(b, 'userSalt'), optStr(b, 'vaultContract'));
  const read = await readSlot(deps, vault, vcId, owner);
  if (!read.ok) {
    const message =
      read.reason === 'vault_not_found'
        ? 'no vault is deployed for this owner and userSalt'
        : `the vault holds no credential ${vcId}`;
    throw new ApiError(read.reason, message);
  }
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

/** POST /credentials/verify: a presented credential, a stored one named by owner and vcId, or both compared. */
function verifyCredentialRoute(
  deps: VaultAppDeps,
  keyCache: Ed25519KeyCache,
): OperationHandler<operations['verifyCredential']> {
  // The handlers take their body and answer through the generated operation types (src/platform/typed.ts).
  return async (req, res) => {
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
    const { canonicalization, rdfBytes } = canonicalizationFor(req, presented);
    const options: NonNullable<VerifyCredentialInput['options']> = isObject(b.options) ? b.options : {};

    let reference: VaultReference | undefined;
    if (owner !== undefined && vcId !== undefined) {
      checkReferenceAccess(peekAuth(req), owner, presented !== undefined);
      reference = await storedReference(deps, b, owner, vcId, presented);
    }
    const credential = presented ?? reference!.slot.document!;
    const parsingProblems = duplicateProblems(duplicateMembersOf(req), '/verifiableCredential', 'credential');
    const result = await onVaults(deps, reference ? [{ vault: reference.vault }] : [], () =>
      verifyCredential(deps, {
        credential,
        options,
        parsingProblems,
        keyCache,
        canonicalization,
        keyless: !peekAuth(req),
        rdfBytes,
        ...(reference ? { reference } : {}),
      }),
    );
    const firstError = result.verified ? undefined : result.problemDetails?.find(isError);
    deps.metrics?.domain.verified(result.verified ? 'verified' : 'failed', firstError?.reason ?? 'none');
    // VCALM: a verification that completes with verified false is a 400 with the same body.
    res.status(result.verified ? 200 : 400).json(result);
  };
}

/** POST /presentations/verify: the presentation, its challenge and each credential it holds. */
function verifyPresentationRoute(
  deps: VaultAppDeps,
  challenges: ChallengeStore,
  keyCache: Ed25519KeyCache,
): OperationHandler<operations['verifyPresentation']> {
  return async (req, res) => {
    const b = bodyOf(req);
    refuseDuplicatesOutside(req, 'verifiablePresentation');
    const { canonicalization, rdfBytes } = canonicalizationFor(req, b.verifiablePresentation);
    const input: VerifyPresentationInput = {
      presentation: b.verifiablePresentation,
      options: b.options,
      parsingProblems: duplicateProblems(duplicateMembersOf(req), '/verifiablePresentation', 'presentation'),
      keyCache,
      canonicalization,
      keyless: !peekAuth(req),
      rdfBytes,
      client: challengeClient(deps, req),
    };
    const result = await verifyPresentation(deps, challenges, input);
    // As /credentials/verify: a presentation that does not verify is a 400 with the same body (the W3C
    // verifier tests require a 4xx), whether it was malformed or its proof, challenge or a credential failed.
    res.status(result.verified ? 200 : 400).json(result);
  };
}

/** GET of the LedgerVaultStatusEntry JSON-LD context: public, cached for a day, readable across origins. */
const getLedgerVaultContext: OperationHandler<GetLedgerVaultContext> = (_req, res) => {
  res.set('Cache-Control', 'public, max-age=86400');
  // Verifiers' JSON-LD processors run in web pages too (jsonld.js document loaders fetch with CORS).
  res.set('Access-Control-Allow-Origin', '*');
  res.type('application/ld+json');
  res.json(LEDGER_VAULT_CONTEXT);
};

/** The verification operations' handlers, by operationId. */
export function verifyRoutes(deps: VaultAppDeps): RouteTable<operations> {
  const challenges: ChallengeStore = deps.stores.challenges ?? createMemoryChallengeStore({ now: deps.now });
  // Making Node's key of an Ed25519 public key costs more than verifying with it: issuers' keys are few.
  const keyCache = new Ed25519KeyCache();
  return {
    verifyCredential: verifyCredentialRoute(deps, keyCache),
    verifyPresentation: verifyPresentationRoute(deps, challenges, keyCache),
    createChallenge: challengeRoute(deps, challenges),
    getLedgerVaultContext,
  };
}
