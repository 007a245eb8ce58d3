// The registrar's jobs and its answers in DIF DID Registration's shapes (§Output fields, §States): `action`
// with a signing request (§Signing Request Set), `wait`, `finished` and `failed`. `jobId` is null once the job
// is finished or failed (§jobId).
import type { components } from '../../generated/did-resolver.ts';
import type { StoredJob } from '../../stores/registrar-jobs.ts';
import type { ResolverErrorCode } from '../context.ts';
import type { Network } from '../../domain.ts';

export type RegistrarState = components['schemas']['RegistrarState'];
export type RegistrarOperation = 'create' | 'update' | 'deactivate';

/** The id of the one signing request a job asks for. */
export const SIGNING_REQUEST_ID = 'signingRequest1';
/** How long a client is told to wait before asking again (about one ledger). */
const WAIT_TIME_MS = 1000;

/** What the store keeps of a job. */
export interface RegistrarJob extends StoredJob {
  operation: RegistrarOperation;
  network: Network;
  networkPassphrase: string;
  did: string;
  /** The controller's account: the transaction source, and the key the signature must verify with. */
  controller: string;
  /** The prepared, unsigned transaction (base64 XDR) and its hash (hex), the payload to sign. */
  transaction: string;
  hash: string;
  phase: 'action' | 'submitted' | 'finished' | 'failed';
  signedXdr?: string;
  /** While submitted: until when the instance that sent it answers for it; then any instance sends it again. */
  leaseUntil?: number;
  error?: ResolverErrorCode;
  reason?: string;
}

/** A refusal answered as `didState.state: failed` (400); `code` is one of the spec's ErrorCode. */
export class RegistrarFailure extends Error {
  readonly code: ResolverErrorCode;
  constructor(code: ResolverErrorCode, reason: string) {
    super(reason);
    this.code = code;
  }
}

const metadataOf = (job: RegistrarJob, extra: Record<string, unknown> = {}) => ({
  operation: job.operation,
  network: job.network,
  ...extra,
});

export function actionState(job: RegistrarJob, refusal?: { error: ResolverErrorCode; reason: string }): RegistrarState {
  return {
    jobId: job.jobId,
    didState: {
      state: 'action',
      action: 'signPayload',
      did: job.did,
      signingRequest: {
        [SIGNING_REQUEST_ID]: {
          payload: {
            type: 'stellarTransactionHash',
            transaction: job.transaction,
            hash: job.hash,
            network: job.network,
            networkPassphrase: job.networkPassphrase,
          },
          serializedPayload: Buffer.from(job.hash, 'hex').toString('base64'),
          kid: job.controller,
          alg: 'EdDSA',
          purpose: 'authentication',
        },
      },
    },
    didRegistrationMetadata: metadataOf(job, refusal ?? {}),
    didDocumentMetadata: {},
  };
}

export function waitState(job: RegistrarJob): RegistrarState {
  return {
    jobId: job.jobId,
    didState: {
      state: 'wait',
      did: job.did,
      wait: `transaction ${job.hash} is submitted; ask again with the jobId`,
      waitTime: WAIT_TIME_MS,
    },
    didRegistrationMetadata: metadataOf(job, { txId: job.hash }),
    didDocumentMetadata: {},
  };
}

export function finishedState(
  job: RegistrarJob,
  resolved: { didDocument: Record<string, unknown>; didDocumentMetadata: Record<string, unknown> },
): RegistrarState {
  return {
    jobId: null,
    didState: { state: 'finished', did: job.did, didDocument: resolved.didDocument },
    didRegistrationMetadata: metadataOf(job, { txId: job.hash }),
    didDocumentMetadata: resolved.didDocumentMetadata,
  };
}

export function failedState(
  error: ResolverErrorCode,
  reason: string,
  job?: Pick<RegistrarJob, 'operation' | 'network' | 'did'>,
): RegistrarState {
  return {
    jobId: null,
    didState: { state: 'failed', error, reason, ...(job ? { did: job.did } : {}) },
    didRegistrationMetadata: job ? { operation: job.operation, network: job.network } : {},
    didDocumentMetadata: {},
  };
}
