// A registrar job's later calls (DID Registration §jobId, §Signing Response Set): the controller's signature
// of the transaction hash is checked against the key the job asks for (any other is refused and the job stays
// open), attached, and the transaction sent in the background; `wait` until it lands, then `finished` with the
// DID's document as resolution answers it, or `failed` with the chain's reason. Any instance answers any job:
// the job's phase is in the shared store, and a submission whose instance went away is sent again (the same
// signed transaction: the network takes it once) once its lease ran out.
import { Keypair, Transaction } from '@stellar/stellar-sdk';
import { ChainError, type Invocation } from '../../chain/index.ts';
import { buildResolutionResult, parseDid, type ParsedDid } from '../../did/index.ts';
import type { RegistrarJobStore } from '../../stores/registrar-jobs.ts';
import { ResolverError } from '../context.ts';
import { fromChainError, readEntry, type RouteContext, type ServedNetwork } from '../routes/shared.ts';
import {
  actionState,
  failedState,
  finishedState,
  RegistrarFailure,
  SIGNING_REQUEST_ID,
  waitState,
  type RegistrarJob,
  type RegistrarOperation,
  type RegistrarState,
} from './state.ts';

/** The registry function of each operation. */
const FUNCTIONS: Record<RegistrarOperation, string> = {
  create: 'register',
  update: 'update',
  deactivate: 'deactivate',
};

export interface AdvanceDeps {
  store: RegistrarJobStore;
  /** How long the instance that sent a transaction answers for it before any instance sends it again. */
  leaseMs: number;
  /** Submissions this process has in flight (awaited on close, and by tests). */
  inFlight: Set<Promise<void>>;
}

export interface Answer {
  status: 200 | 201 | 400;
  state: RegistrarState;
}

type Signing = Record<string, unknown> | undefined;

/** The base64 Ed25519 signature of the signing response, or the refusal that leaves the job open. */
function signatureOf(job: RegistrarJob, secret: Signing): Buffer | { reason: string } | undefined {
  const responses = secret?.signingResponse;
  if (responses === undefined || responses === null) return undefined;
  const response = (responses as Record<string, { signature?: unknown } | undefined>)[SIGNING_REQUEST_ID];
  if (typeof response?.signature !== 'string')
    return { reason: `secret.signingResponse.${SIGNING_REQUEST_ID}.signature is missing` };
  const sig = Buffer.from(response.signature, 'base64');
  if (sig.length !== 64) return { reason: 'the signature must be 64 bytes of base64 (Ed25519)' };
  const key = Keypair.fromPublicKey(job.controller);
  if (!key.verify(Buffer.from(job.hash, 'hex'), sig))
    return {
      reason: `the signature is not ${job.controller}'s signature of the payload (transaction hash ${job.hash})`,
    };
  return sig;
}

const parsedOf = (job: RegistrarJob): ParsedDid => {
  const p = parseDid(job.did);
  if (!p.ok) throw new Error(`job ${job.jobId} holds an invalid DID`);
  return p.value;
};

/** Writes `change`'s job over the job unless another writer moved it first; the job as it then stands. */
async function settle(deps: AdvanceDeps, jobId: string, change: (job: RegistrarJob) => RegistrarJob | undefined) {
  for (let attempt = 0; attempt < 5; attempt++) {
    const read = await deps.store.get<RegistrarJob>(jobId);
    if (!read) return undefined;
    const changed = change(read.job);
    if (!changed) return read.job;
    if (await deps.store.replace(changed, read.revision)) return changed;
  }
  return (await deps.store.get<RegistrarJob>(jobId))?.job;
}

/** Sends the signed transaction and records its outcome in the job; never throws. */
function submitInBackground(ctx: RouteContext, deps: AdvanceDeps, job: RegistrarJob, net: ServedNetwork): void {
  const parsed = parsedOf(job);
  const expect = (inv: Invocation) => {
    if (inv.contractId !== net.registryId || inv.fn !== FUNCTIONS[job.operation])
      throw new ChainError('tx_invalid', 400, "the signed transaction is not the job's");
  };
  const run = (async () => {
    let outcome: Pick<RegistrarJob, 'phase' | 'error' | 'reason'>;
    try {
      await net.chain.client.submit(job.signedXdr!, expect, { contract: 'registry' });
      ctx.deps.metrics?.domain.didWritten(net.name, job.operation === 'create' ? 'register' : job.operation);
      outcome = { phase: 'finished' };
    } catch (err) {
      const e = err instanceof ChainError ? fromChainError(err, net.name) : err;
      const code = e instanceof ResolverError ? e.code : 'internal_error';
      outcome = { phase: 'failed', error: code, reason: (e as Error)?.message ?? String(e) };
    } finally {
      await ctx.cache.evict(net.name, parsed.didId).catch(() => undefined);
    }
    await settle(deps, job.jobId, (j) => (j.phase === 'submitted' ? { ...j, ...outcome } : undefined)).catch(
      (err: unknown) => ctx.deps.log?.({ event: 'registrar_job_unsaved', jobId: job.jobId, message: String(err) }),
    );
  })();
  deps.inFlight.add(run);
  void run.finally(() => deps.inFlight.delete(run));
}

/** The finished answer: the DID's document and metadata as resolution answers them now. */
async function finished(job: RegistrarJob, net: ServedNetwork): Promise<Answer> {
  const parsed = parsedOf(job);
  const entry = await readEntry(net, parsed);
  if (!entry) return { status: 400, state: failedState('did_not_found', `${job.did} is not on the ledger`, job) };
  const created = entry.created ? new Date(entry.created) : undefined;
  const updated = entry.updated ? new Date(entry.updated) : undefined;
  const result = buildResolutionResult({
    parsed,
    record: entry.record,
    ledgerTime: (seq) => (seq === entry.record.createdLedger ? created : updated),
  });
  const state = finishedState(job, {
    didDocument: Object.fromEntries(Object.entries(result.didDocument ?? {})),
    didDocumentMetadata: Object.fromEntries(Object.entries(result.didDocumentMetadata)),
  });
  return { status: job.operation === 'create' ? 201 : 200, state };
}

/** Signs and sends an open job, or answers why not. */
async function signAndSend(ctx: RouteContext, deps: AdvanceDeps, job: RegistrarJob, secret: Signing): Promise<Answer> {
  const sig = signatureOf(job, secret);
  if (sig === undefined) return { status: 200, state: actionState(job) };
  if ('reason' in sig)
    return { status: 400, state: actionState(job, { error: 'signing_response_invalid', reason: sig.reason }) };
  const tx = new Transaction(job.transaction, job.networkPassphrase);
  tx.addSignature(job.controller, sig.toString('base64'));
  const signedXdr = tx.toXdr();
  const now = ctx.deps.now();
  let won = false;
  const sent = await settle(deps, job.jobId, (j) => {
    won = j.phase === 'action';
    if (!won) return undefined;
    return { ...j, phase: 'submitted', signedXdr, leaseUntil: now + deps.leaseMs };
  });
  if (!sent) return { status: 400, state: failedState('job_not_found', `no job ${job.jobId}`) };
  // Another call signed it first: answer as the job stands.
  return answer(ctx, deps, sent, undefined, won && sent.phase === 'submitted' && sent.signedXdr === signedXdr);
}

/**
 * How the job stands, advanced by the request's signing response when it has one. `justSent`: this call
 * moved it to submitted (the transaction is sent now).
 */
export async function answer(
  ctx: RouteContext,
  deps: AdvanceDeps,
  job: RegistrarJob,
  secret: Signing,
  justSent = false,
): Promise<Answer> {
  const net = ctx.served.get(job.network);
  if (!net)
    return {
      status: 400,
      state: failedState('invalid_request', `this registrar no longer serves ${job.network}`, job),
    };
  switch (job.phase) {
    case 'action': {
      if (ctx.deps.now() > job.expiresAt) {
        const reason = `job ${job.jobId} expired at ${new Date(job.expiresAt).toISOString()} before it was signed; start again`;
        await settle(deps, job.jobId, (j) =>
          j.phase === 'action' ? { ...j, phase: 'failed', error: 'job_expired', reason } : undefined,
        );
        return { status: 400, state: failedState('job_expired', reason, job) };
      }
      return signAndSend(ctx, deps, job, secret);
    }
    case 'submitted': {
      const now = ctx.deps.now();
      if (justSent) submitInBackground(ctx, deps, job, net);
      else if ((job.leaseUntil ?? 0) < now) {
        // The instance that sent it went away: send it again (the network lands it once).
        const taken = await settle(deps, job.jobId, (j) =>
          j.phase === 'submitted' && (j.leaseUntil ?? 0) < now ? { ...j, leaseUntil: now + deps.leaseMs } : undefined,
        );
        if (taken?.leaseUntil === now + deps.leaseMs) submitInBackground(ctx, deps, taken, net);
      }
      return { status: 200, state: waitState(job) };
    }
    case 'finished':
      return finished(job, net);
    case 'failed':
      return { status: 400, state: failedState(job.error ?? 'internal_error', job.reason ?? 'the job failed', job) };
  }
}

/** A later call: the job of `jobId` for this operation. */
export async function continueJob(
  ctx: RouteContext,
  deps: AdvanceDeps,
  { operation, jobId, did }: { operation: RegistrarOperation; jobId: string; did?: unknown },
  secret: Signing,
): Promise<Answer> {
  const read = await deps.store.get<RegistrarJob>(jobId);
  if (!read) throw new RegistrarFailure('job_not_found', `no job ${jobId} (unknown, or purged a day after it expired)`);
  if (read.job.operation !== operation)
    throw new RegistrarFailure('invalid_request', `job ${jobId} is a ${read.job.operation}, not a ${operation}`);
  // Later calls may repeat the DID (the Universal Registrar's UpdateRequest requires it): it must be the job's.
  if (did !== undefined && did !== read.job.did)
    throw new RegistrarFailure('invalid_request', `job ${jobId} is for ${read.job.did}, not ${String(did)}`);
  return answer(ctx, deps, read.job, secret);
}
