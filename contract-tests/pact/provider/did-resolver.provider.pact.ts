// Provider verification of the did:ledger resolver: the committed pact against the real Express app
// (response validation on: every answer is also checked against spec/did-resolver.yaml) over the RPC
// simulator, each provider state built with real accounts, DIDs and signatures.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../../test-support/resolver.ts';
import { RESOLVER_PROVIDER, pactFile } from '../shared.ts';
import { verifyQuietly } from '../quiet-verifier.ts';
import { resolverStateHandlers } from './resolver-states.ts';
import { recordingFailures } from './states.ts';

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ validateResponses: true });
});
afterAll(async () => {
  await h?.close();
});

describe(`${RESOLVER_PROVIDER} honours the pact`, () => {
  it('verifies every interaction against the app over the simulator', async () => {
    const states = recordingFailures(resolverStateHandlers(h));
    // In a child process: its report of every interaction is shown when it fails (or when asked).
    const verification = await verifyQuietly({
      provider: RESOLVER_PROVIDER,
      providerBaseUrl: h.url,
      pactUrls: [pactFile(RESOLVER_PROVIDER)],
      stateHandlers: states.handlers,
      logLevel: 'warn',
      failIfNoPactsFound: true,
    });
    // A failing state handler is the cause of whatever failed after it: report it first.
    expect(states.failures, 'provider-state handlers that failed').toEqual([]);
    if (!verification.passed) {
      throw new Error(`the Pact verification failed:\n${verification.output}\n${verification.results}`);
    }
  });
});
