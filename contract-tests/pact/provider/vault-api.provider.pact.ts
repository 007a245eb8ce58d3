// Provider verification of the vault API: the committed pact against the real Express app (response
// validation on: every answer is also checked against spec/vault-api.yaml) over the RPC simulator, each
// provider state built with real accounts, keys, DIDs and signed transactions.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVaultTestEnv, type VaultTestEnv } from '../../../test-support/vault-api.ts';
import { VAULT_PROVIDER, pactFile } from '../shared.ts';
import { verifyQuietly } from '../quiet-verifier.ts';
import { recordingFailures } from './states.ts';
import { vaultStateHandlers } from './vault-states.ts';

const UNMETERED = { read: 100_000, write: 100_000 };
let env: VaultTestEnv;

beforeAll(async () => {
  env = await startVaultTestEnv({
    network: 'testnet',
    validateResponses: true,
    limits: { rateLimits: { standard: UNMETERED, early: UNMETERED, admin: UNMETERED } },
  });
});
afterAll(async () => {
  await env?.close();
});

describe(`${VAULT_PROVIDER} honours the pact`, () => {
  it('verifies every interaction against the app over the simulator', async () => {
    const states = recordingFailures(vaultStateHandlers(env));
    // In a child process: its report of every interaction is shown when it fails (or when asked).
    const verification = await verifyQuietly({
      provider: VAULT_PROVIDER,
      providerBaseUrl: env.url,
      pactUrls: [pactFile(VAULT_PROVIDER)],
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
