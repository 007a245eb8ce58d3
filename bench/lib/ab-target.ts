// One tree's apps for bench/ab-http.ts, in a process of their own: the vault API (stub chain) and the resolver
// of the checkout given as argv[2], started as that tree's tests start them, response validation off. Sends
// their URLs and an admin key when ready; answers `cpu` with this process's CPU time in microseconds.
import path from 'node:path';
import { pathToFileURL } from 'node:url';

// First, before the apps start listening: a parent that dies while they start must not leave them running.
process.on('disconnect', () => process.exit(0));
if (!process.connected) process.exit(0);

const root = path.resolve(process.argv[2] ?? '.');
const many = { read: 1e9, write: 1e9 };
const v = await import(pathToFileURL(path.join(root, 'test-support/vault-api.ts')).href);
const r = await import(pathToFileURL(path.join(root, 'test-support/resolver.ts')).href);
const vault = await v.startVaultTestEnv({
  chain: v.stubChain(),
  contractRoutes: v.stubContractRoutes().router,
  limits: { rateLimits: { standard: many, early: many, admin: many } },
  validateResponses: false,
});
const key = (await vault.mintKey({ wallet: null, role: 'admin' })).key;
const resolver = await r.startHarness({ validateResponses: false, limits: { rateLimit: 1e9 } });
process.on('message', (msg: string) => {
  const used = process.cpuUsage();
  if (msg === 'cpu') process.send?.({ cpu: used.user + used.system });
});
process.send?.({ vault: vault.url, resolver: resolver.url, key });
