// Pact merges new interactions into an existing file; start each consumer run from no file, so an
// interaction removed from a test also leaves the pact.
import { rm } from 'node:fs/promises';
import { RESOLVER_PROVIDER, VAULT_PROVIDER, pactFile } from '../shared.ts';

export default async function setup(): Promise<void> {
  await Promise.all([pactFile(VAULT_PROVIDER), pactFile(RESOLVER_PROVIDER)].map((f) => rm(f, { force: true })));
}
