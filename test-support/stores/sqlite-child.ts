// Run by sqlite.test.ts in a separate process (plain node: Node 24 strips the types): acts on the embedded store of a data
// directory the way the `credential-vault keys` CLI or a second process does while the server runs, and
// prints JSON.
//   create-key <dataDir> <wallet>
//   revoke-key <dataDir> <keyId>
//   begin <dataDir> <scope> <key> <count>   (prints "ready", waits for a line on stdin, then runs count
//                                            concurrent begin() calls, so several processes race)
//   write-and-hang <dataDir> <scope> <key>  (creates a key and completes an idempotency record, prints the
//                                            key as JSON, then waits to be killed)
//   create-keys <dataDir> <prefix> <count>  (creates keys one after another, printing each created key id)
import { createSqliteStores } from '../../src/stores/sqlite.ts';

const [command, dataDir, ...args] = process.argv.slice(2);
if (!dataDir) throw new Error('usage: sqlite-child.ts <command> <dataDir> ...');
const stores = createSqliteStores({ dataDir });
const standard = (wallet: string) => ({
  walletAddress: wallet,
  network: 'testnet' as const,
  role: 'standard' as const,
  scopes: [],
  expiresAt: null,
});

if (command === 'create-key') {
  process.stdout.write(JSON.stringify(await stores.keys.create(standard(args[0]!))));
  await stores.close();
} else if (command === 'revoke-key') {
  process.stdout.write(JSON.stringify(await stores.keys.revoke(args[0]!)));
  await stores.close();
} else if (command === 'begin') {
  const [scope, key, count] = args as [string, string, string];
  await stores.health(); // opened and migrated before the race starts
  process.stdout.write('ready\n');
  await new Promise((resolve) => process.stdin.once('data', resolve));
  process.stdin.pause();
  const results = await Promise.all(
    Array.from({ length: Number(count) }, () => stores.idempotency.begin({ scope, key, requestHash: 'h' })),
  );
  process.stdout.write(JSON.stringify(results.map((r) => r.state)));
  await stores.close();
} else if (command === 'write-and-hang') {
  const [scope, key] = args as [string, string];
  const created = await stores.keys.create(standard('GKILLED'));
  const begun = await stores.idempotency.begin({ scope, key, requestHash: 'h' });
  if (begun.state !== 'started') throw new Error(`begin: ${begun.state}`);
  const done = await stores.idempotency.complete(scope, key, begun.token, {
    status: 201,
    headers: { 'content-type': 'application/json' },
    body: { survived: true },
  });
  if (!done) throw new Error('not completed');
  process.stdout.write(`${JSON.stringify(created)}\n`);
  // Killed (SIGKILL) by the test now: nothing after the writes returned may be needed for them to last.
  setInterval(() => {}, 60_000);
} else if (command === 'create-keys') {
  const [prefix, count] = args as [string, string];
  for (let i = 0; i < Number(count); i++) {
    const { record } = await stores.keys.create(standard(`${prefix}${i}`));
    process.stdout.write(`${record.keyId}\n`);
  }
  await stores.close();
} else {
  throw new Error(`unknown command ${command}`);
}
