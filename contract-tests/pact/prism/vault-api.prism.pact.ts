// The vault API pact replayed against the Prism mock of spec/vault-api.yaml (`npm run mock:vault`).
import { describe, expect, it } from 'vitest';
import { VAULT_PROVIDER, VAULT_SPEC, pactFile } from '../shared.ts';
import { replayAgainstPrism, type PrismExclusion } from './replay.ts';

/**
 * What Prism cannot serve, and why (contract-tests/README.md lists the same): nothing since every error code
 * of an operation is one of its responses' examples, which `Prefer` selects.
 */
const VAULT_EXCLUSIONS: readonly PrismExclusion[] = [];

describe(`the Prism mock of ${VAULT_PROVIDER} honours the pact`, () => {
  it('serves every interaction but the documented exclusions, which it still fails', async () => {
    const result = await replayAgainstPrism({
      provider: VAULT_PROVIDER,
      pactPath: pactFile(VAULT_PROVIDER),
      specPath: VAULT_SPEC,
      exclusions: VAULT_EXCLUSIONS,
    });
    expect(result.excluded.sort()).toEqual(VAULT_EXCLUSIONS.map((e) => e.description).sort());
    expect(result.verified.length).toBeGreaterThan(0);
  });
});
