// The HTTP-level model of the vault API: what the chain holds (vaults, credentials, denied issuers), the
// system under test (the API over HTTP, with real signing by the wallets' keys), and the checks every
// command makes of every answer — status and body exactly as the model predicts, error bodies exactly
// `{error, message}`. The commands are in vault-commands.ts; `runVaultModel` runs them with fast-check.
import { Keypair, TransactionBuilder } from '@stellar/stellar-sdk';
import { deriveVaultAddress } from '../../src/chain/derive.ts';
import type { ModelEnv, Wallet, WalletName, World } from './model-env.ts';
import { send, type Answer } from './spec.ts';

export type Slot = 'c' | 's';

export type VcStatus = { kind: 'valid' } | { kind: 'revoked'; date: string | undefined };

export interface VcModel {
  vcData: string;
  status: VcStatus;
}

export interface VaultModel {
  didUri: string;
  revoked: boolean;
  /** Denied issuers in insertion order. */
  denied: WalletName[];
  /** Every credential the vault stores (revoked ones too), by vcId. */
  vcs: Map<string, VcModel>;
  /** The active index: valid credentials in insertion order (what list-vc-ids pages and vc-count counts). */
  active: string[];
}

export interface Model {
  vaults: Map<string, VaultModel>;
}

export const vaultKey = (owner: WalletName, slot: Slot) => `${owner}/${slot}`;
/** The model of a fresh world: its initial vaults, empty. */
export function initialModel(world: World): Model {
  const vaults = new Map<string, VaultModel>();
  for (const v of world.vaults) vaults.set(vaultKey(v.owner, v.slot), newVault(world.wallets[v.owner].did));
  for (const c of world.credentials) {
    const v = vaults.get(vaultKey(c.owner, c.slot))!;
    v.vcs.set(c.vcId, { vcData: c.vcData, status: { kind: 'valid' } });
    v.active.push(c.vcId);
  }
  return { vaults };
}

export const newVault = (didUri: string): VaultModel => ({
  didUri,
  revoked: false,
  denied: [],
  vcs: new Map(),
  active: [],
});

/** The scope each route needs (vault-api.yaml `x-required-scope`). */
export const SCOPE = {
  issue: 'credentials:issue',
  read: 'credentials:read',
  revoke: 'credentials:revoke',
  vaultWrite: 'vault:write',
  vaultAdmin: 'vault:admin',
  sponsor: 'sponsor',
} as const;

export const hasScope = (w: Wallet, scope: string) => w.scopes.length === 0 || w.scopes.includes(scope);
/** Ownership and issuer bindings: the key's wallet, unless the key is an admin key. */
export const boundTo = (key: Wallet, wallet: Wallet) => key.role === 'admin' || key.id === wallet.id;

/** A model/implementation disagreement, with the exchanges that show it. */
export class ModelMismatch extends Error {
  override readonly name = 'ModelMismatch';
}

interface Exchange {
  via: string;
  method: string;
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
  answer: Answer;
}

const excerpt = (s: string, n = 600) => (s.length > n ? `${s.slice(0, n)}… (${s.length} chars)` : s);

/** What a write is expected to give: success, or an error at prepare or at submit. */
export type WriteOutcome = { ok: true } | { at: 'prepare' | 'submit'; status: number; code: string };
export const OK: WriteOutcome = { ok: true };
export const failsAt = (at: 'prepare' | 'submit', status: number, code: string): WriteOutcome => ({ at, status, code });

export interface WriteOptions {
  /** Key that submits (default: the key that prepared). */
  submitVia?: WalletName;
  /** Route the signed transaction is posted to (default: the prepare route). */
  submitPath?: string;
  /** Submit with an Idempotency-Key, then retry it and expect the stored answer replayed. */
  replay?: boolean;
}

/** The vault API as the model drives it: one key per wallet, the wallets sign. */
export class Real {
  readonly transcript: Exchange[] = [];
  /** Answers seen, by route and outcome (`POST /contracts/vc/issue 409 vc_already_exists`), for coverage reports. */
  readonly seen = new Map<string, number>();
  requests = 0;
  readonly env: ModelEnv;
  readonly world: World;
  readonly factoryId: string;
  readonly runId: string;
  constructor(
    env: ModelEnv,
    world: World,
    factoryId: string,
    /** Unique per sequence: idempotency records outlive sim_revert, so keys must not repeat across sequences. */
    runId: string,
  ) {
    this.env = env;
    this.world = world;
    this.factoryId = factoryId;
    this.runId = runId;
  }

  wallet(name: WalletName): Wallet {
    return this.world.wallets[name];
  }

  saltOf(slot: Slot): string | undefined {
    return slot === 's' ? this.world.salt : undefined;
  }

  vaultAddress(owner: WalletName, slot: Slot): string {
    const userSalt = this.saltOf(slot);
    return deriveVaultAddress({
      networkPassphrase: this.env.passphrase,
      factoryId: this.factoryId,
      owner: this.wallet(owner).id,
      ...(userSalt ? { userSalt } : {}),
    });
  }

  async call(
    via: WalletName,
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<Answer> {
    // The three key headers the spec accepts, in turn (deterministic for a replay).
    const key = this.wallet(via).key;
    const style = this.requests % 3;
    const h: Record<string, string> = {
      ...(style === 0 ? { 'x-svc-key': key } : style === 1 ? { 'x-api-key': key } : { authorization: `Bearer ${key}` }),
      ...headers,
    };
    if (body !== undefined) h['content-type'] = 'application/json';
    const answer = await send(this.env.vaultUrl, {
      method,
      path,
      headers: h,
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    this.transcript.push({
      via,
      method,
      path,
      ...(body !== undefined ? { body } : {}),
      ...(Object.keys(headers).length ? { headers } : {}),
      answer,
    });
    this.requests++;
    const route = path.split('?')[0]!.replace(/\/G[A-Z2-7]{55}$/, '/{owner}');
    const mode = body && typeof body === 'object' && 'signedXdr' in body ? ' submit' : '';
    const outcome = `${method} ${route}${mode} ${answer.status}${answer.status >= 400 ? ` ${(answer.body as { error?: string } | undefined)?.error}` : ''}`;
    this.seen.set(outcome, (this.seen.get(outcome) ?? 0) + 1);
    if (this.transcript.length > 12) this.transcript.shift();
    return answer;
  }

  get(via: WalletName, path: string, query: Record<string, string | number | undefined> = {}): Promise<Answer> {
    const entries = Object.entries(query).filter((e): e is [string, string | number] => e[1] !== undefined);
    const qs = entries.length ? `?${new URLSearchParams(entries.map(([k, v]) => [k, String(v)])).toString()}` : '';
    return this.call(via, 'GET', path + qs);
  }

  post(via: WalletName, path: string, body: unknown, headers?: Record<string, string>): Promise<Answer> {
    return this.call(via, 'POST', path, body, headers);
  }

  fail(what: string): never {
    const lines = this.transcript.slice(-4).map((x) => {
      const keyOf = x.via + (x.headers ? ` ${JSON.stringify(x.headers)}` : '');
      const body = x.body === undefined ? '' : ` ${excerpt(JSON.stringify(x.body), 400)}`;
      return `    → ${x.method} ${x.path} (key of ${keyOf})${body}\n    ← ${x.answer.status} ${excerpt(x.answer.text)}`;
    });
    throw new ModelMismatch(`${what}\n  last exchanges:\n${lines.join('\n')}`);
  }

  /** The answer is the spec's error body with exactly this status and code. */
  expectError(a: Answer, status: number, code: string, what: string): void {
    const b = a.body as Record<string, unknown> | undefined;
    const shapeOk =
      b !== undefined && Object.keys(b).sort().join(',') === 'error,message' && typeof b['message'] === 'string';
    if (a.status !== status || b?.['error'] !== code || !shapeOk)
      this.fail(`${what}: expected ${status} {error: ${code}, message}, got ${a.status} ${excerpt(a.text, 300)}`);
  }

  /** 200 with exactly this JSON body. */
  expectBody(a: Answer, want: unknown, what: string): void {
    if (a.status !== 200 || !deepEqual(a.body, want)) {
      this.fail(`${what}: expected 200 ${excerpt(JSON.stringify(want), 400)}, got ${a.status} ${excerpt(a.text, 400)}`);
    }
  }

  /** Prepare (which must succeed) and sign: the `{signedXdr}` body to submit. */
  async prepareAndSign(
    via: WalletName,
    path: string,
    body: Record<string, unknown>,
    signers: Keypair[],
    what: string,
  ): Promise<{ signedXdr: string }> {
    return this.signPrepared(await this.post(via, path, body), signers, what);
  }

  private signPrepared(prepared: Answer, signers: Keypair[], what: string): { signedXdr: string } {
    const p = prepared.body as { xdr?: unknown; network?: unknown; networkPassphrase?: unknown } | undefined;
    const passphrase = this.env.passphrase;
    const exact = p?.network === passphrase && p.networkPassphrase === passphrase && Object.keys(p).length === 3;
    if (prepared.status !== 200 || typeof p?.xdr !== 'string' || !exact) {
      const want = `{xdr, network and networkPassphrase: "${this.env.passphrase}"}`;
      this.fail(`${what} (prepare): expected 200 ${want}, got ${prepared.status} ${excerpt(prepared.text, 300)}`);
    }
    const tx = TransactionBuilder.fromXdr(p.xdr as string, this.env.passphrase);
    for (const kp of signers) tx.sign(kp);
    return { signedXdr: tx.toXdr() };
  }

  /** Submits a signed transaction; checks the answer against `expected`. Returns whether it landed. */
  async submit(
    via: WalletName,
    path: string,
    signed: { signedXdr: string },
    expected: WriteOutcome,
    what: string,
    replay = false,
  ): Promise<boolean> {
    const hash = Buffer.from(TransactionBuilder.fromXdr(signed.signedXdr, this.env.passphrase).hash()).toString('hex');
    const idem = replay ? { 'idempotency-key': `model-${this.runId}-${hash.slice(0, 24)}` } : undefined;
    const submitted = await this.post(via, path, signed, idem);
    if ('at' in expected) {
      this.expectError(submitted, expected.status, expected.code, `${what} (submit via ${via} to ${path})`);
      if (idem) {
        // Error answers are not stored: the same key gets the same error again, answered afresh.
        const again = await this.post(via, path, signed, idem);
        this.expectError(
          again,
          expected.status,
          expected.code,
          `${what} (retry with the same Idempotency-Key after an error)`,
        );
        if (again.headers.get('idempotency-replayed') !== null)
          this.fail(
            `${what}: an error answer was replayed (Idempotency-Replayed: ${again.headers.get('idempotency-replayed')})`,
          );
      }
      return false;
    }
    const s = submitted.body as { tx_id?: unknown; txId?: unknown } | undefined;
    if (submitted.status !== 200 || typeof s?.tx_id !== 'string' || s.txId !== s.tx_id || Object.keys(s).length !== 2) {
      const got = `${submitted.status} ${excerpt(submitted.text, 300)}`;
      this.fail(`${what} (submit): expected 200 {tx_id, txId}, the same hash, got ${got}`);
    }
    if (s.tx_id !== hash)
      this.fail(`${what} (submit): tx_id ${s.tx_id} is not the hash of the signed transaction (${hash})`);
    if (idem) {
      const again = await this.post(via, path, signed, idem);
      if (again.status !== 200 || !deepEqual(again.body, s) || again.headers.get('idempotency-replayed') !== 'true') {
        this.fail(
          `${what} (retry with the same Idempotency-Key): expected the stored 200 ${JSON.stringify(s)} with Idempotency-Replayed: true, ` +
            `got ${again.status} ${again.text} (Idempotency-Replayed: ${again.headers.get('idempotency-replayed')})`,
        );
      }
      // The same key with another body (valid by the spec: vault-api.yaml SignedTxXdr): 422, nothing sent.
      const other = await this.post(via, path, { signedXdr: `AAAAAg${'A'.repeat(200)}` }, idem);
      this.expectError(other, 422, 'idempotency_key_reused', `${what} (the same Idempotency-Key with another body)`);
    }
    return true;
  }

  /**
   * Prepare → the signers sign → submit, checking each answer against `expected`. Returns whether the
   * transaction landed.
   */
  async write(
    via: WalletName,
    path: string,
    body: Record<string, unknown>,
    signers: Keypair[],
    expected: WriteOutcome,
    what: string,
    o: WriteOptions = {},
  ): Promise<boolean> {
    const prepared = await this.post(via, path, body);
    if ('at' in expected && expected.at === 'prepare') {
      this.expectError(prepared, expected.status, expected.code, `${what} (prepare)`);
      return false;
    }
    const signed = this.signPrepared(prepared, signers, what);
    return this.submit(o.submitVia ?? via, o.submitPath ?? path, signed, expected, what, o.replay === true);
  }
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a))
    return a.length === (b as unknown[]).length && a.every((x, i) => deepEqual(x, (b as unknown[])[i]));
  const ka = Object.keys(a as object).sort();
  const kb = Object.keys(b as object).sort();
  return (
    ka.length === kb.length &&
    ka.every((k, i) => k === kb[i] && deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
  );
}

/** What verify-vc must answer for `vcId` in `v`. */
export function expectedStatus(v: VaultModel, vcId: string): { status: string; since?: string } | 'revoked-any-date' {
  const vc = v.vcs.get(vcId);
  if (!vc) return { status: 'invalid' };
  if (vc.status.kind === 'valid') return { status: 'valid' };
  return vc.status.date === undefined ? 'revoked-any-date' : { status: 'revoked', since: vc.status.date };
}

/** Checks a verify-vc answer against the model. */
export function checkVerify(real: Real, a: Answer, v: VaultModel, vcId: string, what: string): void {
  const want = expectedStatus(v, vcId);
  if (want === 'revoked-any-date') {
    const b = a.body as { status?: unknown; since?: unknown } | undefined;
    const ok =
      a.status === 200 &&
      b?.status === 'revoked' &&
      typeof b.since === 'string' &&
      !Number.isNaN(Date.parse(b.since)) &&
      Object.keys(b).length === 2;
    if (!ok) real.fail(`${what}: expected 200 {status: revoked, since: <ISO date>}, got ${a.status} ${a.text}`);
    return;
  }
  real.expectBody(a, want, what);
}

/**
 * After a run, reads every vault of the model (and the absence of every other one) with the admin key:
 * metadata, the active ids, every credential's status, the denied issuers.
 */
export async function auditAll(model: Model, real: Real, owners: readonly WalletName[]): Promise<void> {
  for (const owner of owners) {
    for (const slot of ['c', 's'] as const) {
      const v = model.vaults.get(vaultKey(owner, slot));
      const q = { userSalt: real.saltOf(slot) };
      const id = real.wallet(owner).id;
      const where = `audit ${owner}/${slot}`;
      const meta = await real.get('admin', `/contracts/vault/${id}`, q);
      if (!v) {
        real.expectError(meta, 404, 'vault_not_found', where);
        continue;
      }
      real.expectBody(meta, metadataOf(real, owner, slot, v), `${where}: metadata`);
      const list = await real.post('admin', '/contracts/vault/list-vc-ids', { owner: id, limit: 200, ...q });
      real.expectBody(list, { result: v.active, offset: 0, limit: 200 }, `${where}: list-vc-ids`);
      for (const [vcId, vc] of v.vcs) {
        checkVerify(
          real,
          await real.post('admin', '/contracts/vault/verify-vc', { owner: id, vcId, ...q }),
          v,
          vcId,
          `${where}: verify ${vcId}`,
        );
        // The owner reads it back with its own key: the payload decrypts to what was issued.
        real.expectBody(
          await real.post(owner, '/contracts/vault/get-vc', { owner: id, vcId, ...q }),
          { result: JSON.parse(vc.vcData) },
          `${where}: get-vc ${vcId}`,
        );
      }
      const denied = await real.get('admin', '/contracts/vault/issuers/denied', { owner: id, limit: 200, ...q });
      real.expectBody(
        denied,
        { issuers: v.denied.map((n) => real.wallet(n).id), offset: 0, limit: 200 },
        `${where}: denied issuers`,
      );
    }
  }
}

export function metadataOf(real: Real, owner: WalletName, slot: Slot, v: VaultModel): Record<string, unknown> {
  return {
    owner: real.wallet(owner).id,
    vault_address: real.vaultAddress(owner, slot),
    did_uri: v.didUri,
    version: '0.4.0',
    vc_count: v.active.length,
    denied_issuer_count: v.denied.length,
  };
}
