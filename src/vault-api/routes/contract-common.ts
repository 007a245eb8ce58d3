// What the contract routes share: the two write modes on one endpoint, the key bindings, vault lookup.
import type { Response } from 'express';
import type { components } from '../../generated/vault-api.ts';
import type { OperationRequest } from '../../platform/typed.ts';
import { prepareOrSubmit, type PrepareBodyOf, type WriteOptions } from '../../platform/write.ts';
import { ApiError, VaultErrors, getAuth, type AuthContext, type VaultAppDeps } from '../context.ts';
import {
  ChainError,
  decodeBatchIssueArgs,
  mismatch,
  type Invocation,
  type PreparedTransaction,
  type UserSalt,
} from '../../chain/index.ts';
import { routeTemplate } from '../../observability/index.ts';

export type Body = Record<string, unknown>;
type PrepareResponse = components['schemas']['PrepareResponse'];
type SubmitResponse = components['schemas']['SubmitResponse'];

/** One write route of operation `Op`: prepare builds the unsigned transaction, check refuses a signed one (safe submit). */
export interface WriteRoute<Op> {
  prepare(body: PrepareBodyOf<Op>, auth: AuthContext, req: OperationRequest<Op>): Promise<PreparedTransaction>;
  /** Runs on the decoded signed transaction before it is sent; throws to refuse it. */
  check(inv: Invocation, auth: AuthContext, req: OperationRequest<Op>): Promise<void> | void;
}

/**
 * Prepare or submit, chosen by the body (vault-api.yaml `PrepareResponse`, `SubmitResponse`; the choice and
 * the submit counts are the platform's, src/platform/write.ts): `{signedXdr}` alone submits and answers
 * `{tx_id, txId}`; anything else prepares and answers `{xdr, network, networkPassphrase}`. The second name
 * of each pair is the resolver's, so one client helper reads both.
 */
export function writeHandler<Op>(
  deps: VaultAppDeps,
  route: WriteRoute<Op>,
): (req: OperationRequest<Op>, res: Response<PrepareResponse | SubmitResponse>) => Promise<void> {
  return prepareOrSubmit<OperationRequest<Op>, Response<PrepareResponse | SubmitResponse>>(writeOptions(deps), {
    submit: async (signedXdr, req, res) => {
      submitAlone(req);
      const auth = getAuth(req);
      let invoked: Invocation | undefined;
      const sent = await deps.chain.client.submit(signedXdr, (inv) => {
        invoked = inv;
        return route.check(inv, auth, req);
      });
      if (invoked) countCredentials(deps, invoked);
      res.json({ tx_id: sent.txId, txId: sent.txId });
    },
    prepare: async (body, req, res) => {
      bodyOf(req);
      const prepared = await route.prepare(body, getAuth(req), req);
      res.json({ xdr: prepared.xdr, network: prepared.network, networkPassphrase: prepared.network });
    },
  });
}

/** How the vault API's writes count their submits and name their failures (src/platform/write.ts WriteOptions). */
export function writeOptions(deps: VaultAppDeps): WriteOptions {
  return {
    routeOf: (req) => routeTemplate(req),
    codeOf: (err) => (err instanceof ApiError || err instanceof ChainError ? err.code : undefined),
    ...(deps.metrics ? { submitted: deps.metrics.domain.submitted.bind(deps.metrics.domain) } : {}),
  };
}

/** The submit body `{signedXdr}` alone (vault-api.yaml SubmitRequest). */
export function submitAlone(req: { body: unknown }): void {
  if (Object.keys(bodyOf(req)).length !== 1)
    throw VaultErrors.invalidRequest('submit takes {signedXdr} alone, a string');
}

/** Credentials a successful transaction issued or revoked, in the domain counters. */
function countCredentials(deps: VaultAppDeps, inv: Invocation): void {
  const domain = deps.metrics?.domain;
  if (!domain) return;
  if (inv.fn === 'issue') domain.credentialsIssued(1);
  else if (inv.fn === 'batch_issue') domain.credentialsIssued(decodeBatchIssueArgs(inv).vcs.length);
  else if (inv.fn === 'revoke') domain.credentialsRevoked(1);
}

/** The request's body, refused unless a JSON object; typed as the request says (the operation's body). */
export function bodyOf<B>(req: { body: B }): B & object {
  const body = req.body;
  if (!body || typeof body !== 'object' || Array.isArray(body))
    throw VaultErrors.invalidRequest('the body must be a JSON object');
  return body;
}

/** The key's wallet; a key without one gets 403 wallet_not_linked on routes that bind a field to it. */
export function keyWallet(auth: AuthContext): string {
  if (!auth.wallet) throw VaultErrors.walletNotLinked('the API key is not linked to a wallet');
  return auth.wallet;
}

export type Binding = 'ownership' | 'issuer' | 'sponsor';

/**
 * `field` must equal the key's wallet (vault-api.yaml "Bindings": admin-role keys are exempt).
 * The message names the field and the binding.
 */
export function bindToWallet(auth: AuthContext, binding: Binding, field: string, value: string): void {
  if (auth.role === 'admin') return;
  if (value !== keyWallet(auth)) {
    throw VaultErrors.forbidden(`${field} must equal the wallet bound to the API key (${binding} binding)`);
  }
}

/**
 * Safe submit on a bound route: every authorization entry of the transaction, whatever its credential type
 * (legacy ADDRESS, ADDRESS_V2, ADDRESS_WITH_DELEGATES, source account), authorizes for the key's wallet, so a
 * signed transaction cannot carry the authorization of an address the key is not bound to. An
 * ADDRESS_WITH_DELEGATES entry's delegates sign for its address, which is what is bound.
 */
export function bindAuthorizers(auth: AuthContext, binding: Binding, inv: Invocation): void {
  if (auth.role === 'admin') return;
  const wallet = keyWallet(auth);
  for (const a of inv.auth) {
    if (a.address === wallet) continue;
    throw VaultErrors.forbidden(
      `the transaction carries an authorization entry (${CREDENTIAL_NAMES[a.credentials]}) for ${a.address}, which is not the wallet bound to the API key (${binding} binding)`,
    );
  }
}

const CREDENTIAL_NAMES = {
  sourceAccount: 'SOURCE_ACCOUNT',
  address: 'ADDRESS',
  addressV2: 'ADDRESS_V2',
  addressWithDelegates: 'ADDRESS_WITH_DELEGATES',
} as const;

/** A rule between two request fields that holds for every key, reported as 403 forbidden naming the field. */
export function requireSame(field: string, value: string, other: string, otherValue: string): void {
  if (value !== otherValue) throw VaultErrors.forbidden(`${field} must equal ${other}`);
}

/**
 * The vault at (owner, userSalt). A `vaultContract` the client already knows must be that same address
 * (vault-api.yaml VaultContractQuery: 400 vaultContract_mismatch).
 */
export function vaultOf(deps: VaultAppDeps, owner: string, userSalt?: UserSalt, vaultContract?: string): string {
  const vault = deps.chain.vaultAddress(owner, userSalt);
  if (vaultContract !== undefined && vaultContract !== vault) {
    throw VaultErrors.vaultContractMismatch(
      `vaultContract ${vaultContract} is not the vault of this owner and userSalt (${vault})`,
    );
  }
  return vault;
}

const NOT_ABOUT_THE_VAULT: ReadonlySet<string> = new Set([
  'chain_unavailable',
  'source_account_not_found',
  'tx_timeout',
]);

/**
 * Runs a chain call on vaults; when it fails and one of them holds no contract, the answer is
 * 404 vault_not_found (one ledger read, on the failure path only).
 */
export async function onVaults<T>(
  deps: VaultAppDeps,
  vaults: { vault: string; label?: string }[],
  f: () => Promise<T>,
): Promise<T> {
  try {
    return await f();
  } catch (e) {
    if (!(e instanceof ChainError) || NOT_ABOUT_THE_VAULT.has(e.code)) throw e;
    for (const { vault, label } of vaults) {
      if (!(await deps.chain.vault.exists({ vault }))) {
        throw VaultErrors.vaultNotFound(`no vault is deployed ${label ?? 'for this owner and userSalt'} (${vault})`);
      }
    }
    throw e;
  }
}

/** Safe submit: the transaction invokes a vault this network's factory deployed. */
export async function expectFactoryVault(
  deps: VaultAppDeps,
  inv: Invocation,
  contractId = inv.contractId,
): Promise<void> {
  const isVault = contractId !== deps.chain.factory.factoryId && (await deps.chain.factory.isVault(contractId));
  if (!isVault) {
    throw mismatch(
      `the signed transaction invokes ${inv.fn} on ${contractId}, which is not a vault of this network's factory`,
    );
  }
}

/** Safe submit: the transaction invokes this network's factory. */
export function expectFactory(deps: VaultAppDeps, inv: Invocation): void {
  if (inv.contractId !== deps.chain.factory.factoryId) {
    throw mismatch(`the signed transaction invokes ${inv.fn} on ${inv.contractId}, not on this network's factory`);
  }
}

/** A string field of a validated body (the validator guarantees types; this keeps handlers honest). */
export function str(body: Body, name: string): string {
  const v = body[name];
  if (typeof v !== 'string') throw VaultErrors.invalidRequest(`${name} is required and must be a string`);
  return v;
}

export function optStr(body: Body, name: string): string | undefined {
  const v = body[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw VaultErrors.invalidRequest(`${name} must be a string`);
  return v;
}

/**
 * An integer parameter from a body or a query string: default when absent, `limit_too_large` above max
 * for limits, `invalid_request` otherwise (vault-api.yaml Offset / Limit).
 */
export function intParam(v: unknown, name: 'offset' | 'limit', dflt: number): number {
  if (v === undefined || v === '') return dflt;
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^-?\d+$/.test(v) ? Number(v) : NaN;
  if (!Number.isSafeInteger(n)) throw VaultErrors.invalidRequest(`${name} must be an integer`);
  if (name === 'limit') {
    if (n > MAX_PAGE) throw VaultErrors.limitTooLarge(`limit must be at most ${MAX_PAGE}`);
    if (n < 1) throw VaultErrors.invalidRequest('limit must be at least 1');
  } else if (n < 0) {
    throw VaultErrors.invalidRequest('offset must be 0 or more');
  } else if (n > MAX_OFFSET) {
    throw VaultErrors.invalidRequest(`offset must be at most ${MAX_OFFSET} (the contract takes a u32)`);
  }
  return n;
}

export const MAX_PAGE = 200;
/** The contracts' u32. */
export const MAX_OFFSET = 4_294_967_295;
export const DEFAULT_LIMIT = 50;
