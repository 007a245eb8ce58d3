// A service app of the platform (src/platform/app.ts) over a test's own description, with what a test of the
// platform does not care about filled in: no request log, a metrics registry of its own, and every failure
// answered as its status (the code is the status, the message the error's).
import type { RequestHandler } from 'express';
import { createMetrics } from '../src/observability/index.ts';
import { createServiceApp, type ServiceAppOptions } from '../src/platform/app.ts';
import { errorHandler } from '../src/platform/errors.ts';
import { type FailureCodes, ServiceError } from '../src/platform/failures.ts';
import type { ApiModel } from '../src/platform/operations.ts';

type Options = ServiceAppOptions<Record<string, unknown>>;

export interface TestAppOptions {
  model: ApiModel;
  /** Handlers by operationId. */
  handlers: Record<string, RequestHandler>;
  /** Default: every error reported (`allErrors`), responses not validated. */
  validator?: Options['validator'];
  /** Default: the validation alone. */
  layers?: Options['layers'];
  /** Default: no checks. */
  ready?: Options['ready'];
}

export function testServiceApp(o: TestAppOptions) {
  return createServiceApp<Record<string, unknown>>({
    model: o.model,
    validator: o.validator ?? { allErrors: true, validateResponses: false },
    headEnvelope: (code, message) => ({ code, message }),
    metrics: { metrics: createMetrics({ service: 'test' }), service: 'test' },
    ready: o.ready ?? { checks: [] },
    layers: o.layers ?? ((_op, validate) => validate),
    handlers: o.handlers as never,
    notFound: (req) => Object.assign(new Error(`no route ${req.method} ${req.path}`), { status: 404 }),
    errorHandler: errorHandler({
      codes: {
        translate: (err) => {
          const e = err as { status?: number; message?: string };
          return { error: new ServiceError(e.status ?? 500, String(e.status ?? 500), e.message ?? '') };
        },
      } as Partial<FailureCodes<string>> as FailureCodes<string>,
      body: ({ code, message }) => ({ code, message }),
    }),
  });
}
