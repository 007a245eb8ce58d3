// The DIF Universal Registrar's HTTPS binding on the resolver (DID Registration §HTTPS Binding): POST
// /1.0/create?method=ledger, /1.0/update, /1.0/deactivate. A request without `jobId` starts a job; one with
// it advances or reports that job. Refusals are `didState.state: failed` with the spec's error code (400);
// an outage of the ledger or of the job store is the error envelope (502 `ledger_unavailable`, 503
// `registrar_unavailable`), as on every other route: the job is unchanged and the client asks again.
import type { operations } from '../../generated/did-resolver.ts';
import type { OperationHandler, OperationResponse } from '../../platform/typed.ts';
import { memoryRegistrarJobs, type RegistrarJobStore } from '../../stores/registrar-jobs.ts';
import { StoreUnavailableError } from '../../stores/types.ts';
import { ResolverErrors } from '../context.ts';
import type { RouteContext } from '../routes/shared.ts';
import { answer, continueJob, type AdvanceDeps, type Answer } from './advance.ts';
import { SIGNING_RESPONSE_NEEDS_JOB } from './refusal.ts';
import { startCreate, startDeactivate, startUpdate, type RegistrarRequest } from './start.ts';
import { failedState, RegistrarFailure, type RegistrarJob, type RegistrarOperation } from './state.ts';

/** Default lease of a submission: longer than any submit waits for its transaction. */
const DEFAULT_LEASE_MS = 2 * 60 * 1000;

type RegistrarOp = operations['registrarCreate' | 'registrarUpdate' | 'registrarDeactivate'];

export interface RegistrarOptions {
  /** Where jobs live (default: this process's memory). */
  jobs?: RegistrarJobStore;
  leaseMs?: number;
}

type Body = RegistrarRequest & {
  jobId?: unknown;
  did?: unknown;
  didDocument?: unknown;
  didDocumentOperation?: unknown;
};

function send(res: OperationResponse<RegistrarOp>, a: Answer): void {
  res.status(a.status).json(a.state);
}

export function registrarRoutes(ctx: RouteContext, options: RegistrarOptions = {}) {
  const deps: AdvanceDeps = {
    store: options.jobs ?? memoryRegistrarJobs(),
    leaseMs: options.leaseMs ?? DEFAULT_LEASE_MS,
    inFlight: new Set(),
  };
  const run = async (
    operation: RegistrarOperation,
    body: Body,
    res: OperationResponse<RegistrarOp>,
    start: () => Promise<RegistrarJob>,
  ) => {
    try {
      if (typeof body.jobId === 'string')
        return send(res, await continueJob(ctx, deps, { operation, jobId: body.jobId, did: body.did }, body.secret));
      if (body.secret?.signingResponse !== undefined)
        throw new RegistrarFailure('invalid_request', SIGNING_RESPONSE_NEEDS_JOB);
      send(res, await answer(ctx, deps, await start(), undefined));
    } catch (err) {
      if (err instanceof StoreUnavailableError)
        throw ResolverErrors.registrarUnavailable(`the registrar job store is unreachable: ${err.message}`);
      if (!(err instanceof RegistrarFailure)) throw err;
      send(res, { status: 400, state: failedState(err.code, err.message) });
    }
  };

  const create: OperationHandler<operations['registrarCreate']> = async (req, res) => {
    const body = req.body as Body;
    if (req.query.method !== 'ledger' && typeof body.jobId !== 'string') {
      const reason = `this registrar creates did:ledger DIDs only (method=ledger), not ${String(req.query.method)}`;
      return send(res, { status: 400, state: failedState('method_not_supported', reason) });
    }
    await run('create', body, res, () => startCreate(ctx, deps, body));
  };
  const update: OperationHandler<operations['registrarUpdate']> = async (req, res) => {
    const body = req.body as Body;
    await run('update', body, res, () => startUpdate(ctx, deps, body));
  };
  const deactivate: OperationHandler<operations['registrarDeactivate']> = async (req, res) => {
    const body = req.body as Body;
    await run('deactivate', body, res, () => startDeactivate(ctx, deps, body));
  };
  return { create, update, deactivate, inFlight: deps.inFlight };
}
