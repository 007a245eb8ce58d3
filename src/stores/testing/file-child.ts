// Run by file.test.ts in a separate process (plain node: it strips the types): acts on the file store of a data
// directory the way the `credential-vault keys` CLI does while the server runs, and prints JSON.
//   create-key <dataDir> <wallet>
//   begin <dataDir> <scope> <key> <count>   (prints "ready", waits for a line on stdin, then runs count
//                                            concurrent begin() calls, so several processes race)
//   complete-and-hang <dataDir> <scope> <key>  (begin and complete, print "completed", then wait to be killed)
import { createFileIdempotencyStore, createFileKeyStore } from '../file.ts';

const [command, dataDir, ...args] = process.argv.slice(2);
if (!dataDir) throw new Error('usage: file-child.ts <command> <dataDir> ...');

if (command === 'create-key') {
  const keys = createFileKeyStore({ dataDir });
  const created = await keys.create({ walletAddress: args[0]!, network: 'testnet', role: 'standard', scopes: [], expiresAt: null });
  process.stdout.write(JSON.stringify(created));
} else if (command === 'begin') {
  const [scope, key, count] = args as [string, string, string];
  const store = createFileIdempotencyStore({ dataDir });
  process.stdout.write('ready\n');
  await new Promise((resolve) => process.stdin.once('data', resolve));
  process.stdin.pause();
  const results = await Promise.all(
    Array.from({ length: Number(count) }, () => store.begin({ scope, key, requestHash: 'h' })),
  );
  process.stdout.write(JSON.stringify(results.map((r) => r.state)));
} else if (command === 'complete-and-hang') {
  const [scope, key] = args as [string, string];
  const store = createFileIdempotencyStore({ dataDir });
  const begun = await store.begin({ scope, key, requestHash: 'h' });
  if (begun.state !== 'started') throw new Error(`begin: ${begun.state}`);
  const done = await store.complete(scope, key, begun.token, { status: 201, headers: { 'content-type': 'application/json' }, body: { survived: true } });
  process.stdout.write(done ? 'completed\n' : 'not completed\n');
  // Killed (SIGKILL) by the test now: nothing after complete() returned may be needed for the record to last.
  setInterval(() => {}, 60_000);
} else {
  throw new Error(`unknown command ${command}`);
}
