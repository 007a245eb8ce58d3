// What the RPC transport workaround (src/chain/transport.ts) buys, measured in process: the CPU time this process
// spends per JSON-RPC call through the SDK's rpc.Server on its own HTTP client (axios) and on transport.ts, against
// the chain simulator in another process (so that only the client's side is counted). The calls are the ones a
// prepare and a submit make: getLedgerEntries of an account, simulateTransaction of a contract read,
// getTransaction of an unknown hash. Rounds alternate between the two clients.
//
//   node scripts/rpc-transport-cost.ts [calls per round, default 2000] [rounds, default 3]
// (it opens ports on 127.0.0.1: run it where the project's tests run, e.g. inside /work/tools/netns-run).
import { Account, Contract, Keypair, TransactionBuilder, xdr } from '@stellar/stellar-sdk';
import { startHost } from '../bench/lib/child.ts';
import type { SimReady } from '../bench/lib/stack.ts';
import { createRpcServer } from '../src/chain/rpc.ts';

const calls = Number(process.argv[2] ?? 2000);
const rounds = Number(process.argv[3] ?? 3);

const sim = await startHost<SimReady>({ kind: 'simulator' });
try {
  const info = sim.ready.networks.testnet;
  const url = `${sim.ready.url}/testnet/rpc`;
  const admin = info.admin.publicKey;
  const accountKey = xdr.LedgerKey.account(
    new xdr.LedgerKeyAccount({ accountId: Keypair.fromPublicKey(admin).xdrPublicKey() }),
  );
  const read = new TransactionBuilder(new Account(admin, '0'), { fee: '100', networkPassphrase: info.passphrase })
    .addOperation(new Contract(info.factoryId).call('get_admin'))
    .setTimeout(0)
    .build();
  const unknownHash = '00'.repeat(32);
  const servers = {
    sdk: createRpcServer({ rpcUrl: url, allowHttp: true, timeoutMs: 10_000, transport: 'sdk' }),
    node: createRpcServer({ rpcUrl: url, allowHttp: true, timeoutMs: 10_000, transport: 'node' }),
  };
  const kinds = {
    getLedgerEntries: (s: (typeof servers)['sdk']) => s.getLedgerEntries(accountKey),
    simulateTransaction: (s: (typeof servers)['sdk']) => s.simulateTransaction(read),
    getTransaction: (s: (typeof servers)['sdk']) => s.getTransaction(unknownHash),
  };
  const cpu = () => {
    const u = process.cpuUsage();
    return u.user + u.system;
  };
  const results: Record<string, number[]> = {};
  for (const [kind, call] of Object.entries(kinds)) {
    for (const s of Object.values(servers)) for (let i = 0; i < 300; i++) await call(s); // warm-up
    for (let r = 0; r < rounds; r++) {
      for (const [name, s] of Object.entries(servers)) {
        const t0 = cpu();
        for (let i = 0; i < calls; i++) await call(s);
        (results[`${kind} ${name}`] ??= []).push((cpu() - t0) / calls);
      }
    }
  }
  for (const kind of Object.keys(kinds)) {
    const sdk = results[`${kind} sdk`]!;
    const node = results[`${kind} node`]!;
    const f = (xs: number[]) => xs.map((x) => x.toFixed(0)).join(' / ');
    const saved = sdk.map((x, i) => x - node[i]!);
    console.log(`${kind}: sdk ${f(sdk)} µs, node ${f(node)} µs CPU per call; saved ${f(saved)} µs`);
  }
} finally {
  await sim.stop();
}
