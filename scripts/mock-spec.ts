// What `npm run mock:vault` / `mock:resolver` hand to Prism: the spec, with two rules applied so that Prism's
// answer to an invalid request is the one the service gives (contract-tests/prism-mock.test.ts checks both
// side by side).
//
// 1. Prism answers a request that fails validation with the operation's 422 response when it declares one,
//    else its 400 (prism-http mocker: expected codes [422, 400]). The vault API's writes declare 422 for
//    `idempotency_key_reused`, so Prism answered every invalid write body with it; the service answers 400
//    `invalid_request`. The mock's copy drops a 422 beside a 400. What is lost: `Prefer: code=422` on the
//    mock, which keeps no idempotency records anyway.
// 2. A path parameter that the service checks in its handler (to answer a resolution result, not an error
//    envelope) carries that check as `x-handler-pattern`; the mock's copy makes it the schema's `pattern`,
//    so Prism answers an invalid DID with the operation's 400 example (`invalidDid`) instead of a document.
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { buildModel, type OpenApiDocument } from '../src/platform/operations.ts';

type Json = Record<string, any>; // parsed YAML

/** A copy of `spec` with the mock rules applied, through its operation model; `spec` itself is left unchanged. */
export function mockSpec(spec: Json): Json {
  const copy = structuredClone(spec) as OpenApiDocument;
  for (const op of buildModel(copy).operations.values()) {
    const responses = op.source.responses;
    if (responses?.['400'] !== undefined) delete responses['422'];
    for (const param of [...op.parameters.path, ...op.parameters.query, ...op.parameters.header]) {
      const pattern = (param.source as Json)['x-handler-pattern'];
      if (typeof pattern === 'string' && param.source.schema) param.source.schema = { ...param.source.schema, pattern };
    }
  }
  return copy;
}

export function loadMockSpec(file: string): Json {
  return mockSpec(parse(readFileSync(file, 'utf8')) as Json);
}
