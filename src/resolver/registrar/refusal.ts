// A registrar request that the spec's request schema refuses (the request-only rules: `options.network`, the
// `did` pattern, the members a first or a later call needs) answers as the Universal Registrar's OpenAPI answers
// every 400 of create, update and deactivate: a state (`CreateState`, `UpdateState`, `DeactivateState`), here
// `didState.state: failed` with the code the handler would have given: `did_invalid` for a DID, the secret-mode
// refusal without `clientSecretMode: true`, else `invalid_request` naming the first failing field.
import type { Request } from 'express';
import { parseDid } from '../../did/index.ts';
import type { Failure } from '../../platform/failures.ts';
import { checkSecretMode } from './start.ts';
import { failedState, RegistrarFailure, type RegistrarState } from './state.ts';

/** Why a first call cannot carry a signing response. */
export const SIGNING_RESPONSE_NEEDS_JOB = 'a signing response needs the jobId of the job that asked for it';

const REGISTRAR_PATHS: ReadonlySet<string> = new Set(['/1.0/create', '/1.0/update', '/1.0/deactivate']);

/** The path is one of the registrar's operations. */
export const isRegistrarPath = (path: string): boolean => REGISTRAR_PATHS.has(path);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The failed state for a registrar body the request schema refused. */
export function registrarValidationState(failure: Failure, req: Request): RegistrarState {
  const body: unknown = req.body;
  if (isObject(body)) {
    if ('did' in body) {
      const parsed = parseDid(body.did);
      if (!parsed.ok) return failedState('did_invalid', `did: ${parsed.message}`);
    }
    if (body.jobId === undefined && isObject(body.secret) && 'signingResponse' in body.secret)
      return failedState('invalid_request', SIGNING_RESPONSE_NEEDS_JOB);
    if (body.jobId === undefined && (body.options === undefined || isObject(body.options))) {
      try {
        checkSecretMode({ options: body.options as Record<string, unknown> | undefined });
      } catch (err) {
        if (!(err instanceof RegistrarFailure)) throw err;
        return failedState(err.code, err.message);
      }
    }
  }
  const items = failure.items.filter((i) => i.keyword !== 'oneOf');
  const first = items[0] ?? failure.items[0];
  const where = first?.path.replace(/^\/body\/?/, '').replace(/\//g, '.') || 'body';
  return failedState('invalid_request', first ? `${where} ${first.message}`.slice(0, 2000) : failure.message);
}
