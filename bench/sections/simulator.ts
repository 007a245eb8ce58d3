// The chain simulator's own speed: in-process verify_vc reads and signed issue transactions, and
// sequential prepare → sign → send → confirmed cycles over its JSON-RPC with the SDK's rpc.Server.
import { BASE_FEE, Contract, Keypair, TransactionBuilder, rpc, xdr } from '@stellar/stellar-sdk';
import { createSimulator } from '../../simulator/index.ts';
import { deployVault, fillVault, fundedAccount, issueArgs, issuer, vcId } from '../lib/chain-fixtures.ts';
import { startHost } from '../lib/child.ts';
import { fmtRate, table, verdict } from '../lib/markdown.ts';
import { attempt, wanted, type Outcome, type SectionContext, type SectionResult } from '../lib/section.ts';
import type { SimReady } from '../lib/stack.ts';
import { ms, sleep, timedAsync, timedSync, type Rate } from '../lib/stats.ts';

function inProcessVerify(ctx: SectionContext): Rate {
  const net = createSimulator().network('testnet');
  const iss = issuer(net);
  const owner = fundedAccount(net);
  const vault = deployVault(net, owner, iss.did);
  fillVault(net, { vault, issuer: iss, count: 100, prefix: 'read' });
  const ids = Array.from({ length: 100 }, (_, i) => [xdr.ScVal.scvString(vcId('read', i))]);
  const first = net.read(vault, 'verify_vc', ids[0]!);
  if (first.status !== 'SUCCESS') throw new Error(`verify_vc failed: ${first.error}`);
  const op = (i: number) => net.read(vault, 'verify_vc', ids[i % ids.length]!).status === 'SUCCESS';
  timedSync(ctx.settings.warmup, op);
  return timedSync(ctx.settings.duration, op);
}

function inProcessIssue(ctx: SectionContext): Rate {
  const net = createSimulator().network('testnet');
  const iss = issuer(net);
  const owner = fundedAccount(net);
  const vault = deployVault(net, owner, iss.did);
  const account = iss.keypair.publicKey();
  let n = 0;
  const op = () =>
    net.invoke({
      source: iss.keypair,
      contractId: vault,
      fn: 'issue',
      args: issueArgs(vault, account, iss.did, vcId('tx', n++)),
    }).status === 'SUCCESS';
  if (!op()) throw new Error('a signed issue transaction failed in-process');
  timedSync(ctx.settings.warmup, op);
  return timedSync(ctx.settings.duration, op);
}

async function rpcCycles(ctx: SectionContext): Promise<Rate> {
  const host = await startHost<SimReady>({ kind: 'simulator' });
  try {
    const i = await host.call<{ secret: string; publicKey: string; did: string }>('issuer');
    const o = await host.call<{ vault: string }>('owner');
    const kp = Keypair.fromSecret(i.secret);
    const passphrase = host.ready.networks.testnet.passphrase;
    const server = new rpc.Server(`${host.ready.url}/testnet/rpc`, { allowHttp: true });
    const contract = new Contract(o.vault);
    let account = await server.getAccount(i.publicKey);
    let n = 0;
    const cycle = async (): Promise<boolean> => {
      try {
        const tx = new TransactionBuilder(account, { fee: BASE_FEE, networkPassphrase: passphrase })
          .addOperation(contract.call('issue', ...issueArgs(o.vault, i.publicKey, i.did, vcId('rpc', n++))))
          .setTimeout(300)
          .build();
        const prepared = await server.prepareTransaction(tx);
        prepared.sign(kp);
        const sent = await server.sendTransaction(prepared);
        if (sent.status !== 'PENDING') throw new Error(`sendTransaction: ${sent.status}`);
        const deadline = Date.now() + 30_000;
        for (;;) {
          const r = await server.getTransaction(sent.hash);
          if (r.status === rpc.Api.GetTransactionStatus.SUCCESS) return true;
          if (r.status === rpc.Api.GetTransactionStatus.FAILED) throw new Error('transaction FAILED');
          if (Date.now() > deadline) throw new Error('not final after 30 s');
          await sleep(2);
        }
      } catch {
        account = await server.getAccount(i.publicKey); // the local sequence number ran ahead
        return false;
      }
    };
    if (!(await cycle())) throw new Error('the first RPC cycle failed');
    await timedAsync(ctx.settings.warmup, cycle);
    return await timedAsync(ctx.settings.duration, cycle);
  } finally {
    await host.stop();
  }
}

export async function runSimulatorSection(ctx: SectionContext): Promise<SectionResult> {
  const rows: { name: string; what: string; target: number; unit: string; outcome: Outcome<Rate> }[] = [];
  const run = async (name: string, what: string, target: number, unit: string, fn: () => Promise<Rate> | Rate) => {
    if (!wanted(ctx, name)) return;
    const outcome = await attempt(ctx, name, async () => {
      const r = await fn();
      ctx.log(
        `    ${fmtRate(r.perSecond)} ${unit}/s, p50 ${ms(r.latency.p50)} ms, p99 ${ms(r.latency.p99)} ms, failures ${r.failures}`,
      );
      return r;
    });
    rows.push({ name, what, target, unit, outcome });
  };
  await run('sim-verify', 'in-process `verify_vc` read calls', 20_000, 'calls', () => inProcessVerify(ctx));
  await run(
    'sim-issue',
    'in-process signed `issue` transactions (build, simulate, sign, submit: envelope and auth signatures checked with node:crypto Ed25519)',
    2_000,
    'tx',
    () => inProcessIssue(ctx),
  );
  await run(
    'sim-rpc',
    'sequential prepare → sign → send → confirmed cycles over HTTP JSON-RPC (SDK `rpc.Server.prepareTransaction`, `Transaction.sign`, `sendTransaction`, `getTransaction` until SUCCESS), simulator in its own process',
    300,
    'cycles',
    () => rpcCycles(ctx),
  );

  const body = rows.map((r) => {
    if (!r.outcome.ok)
      return [r.what, '—', '—', '—', '—', `≥ ${fmtRate(r.target)}/s`, `not measured: ${r.outcome.error}`];
    const v = r.outcome.value;
    return [
      r.what,
      `${fmtRate(v.perSecond)}/s`,
      ms(v.latency.p50),
      ms(v.latency.p99),
      String(v.failures),
      `≥ ${fmtRate(r.target)}/s`,
      verdict(v.perSecond >= r.target && v.failures === 0),
    ];
  });
  const markdown = [
    '## Chain simulator',
    '',
    `Each measure runs ${ctx.settings.warmup} s of warm-up then ${ctx.settings.duration} s back to back in one thread; a measure with failures does not pass.`,
    '',
    table(['measure', 'rate', 'p50 ms', 'p99 ms', 'failures', 'target', 'verdict'], body, [
      'l',
      'r',
      'r',
      'r',
      'r',
      'r',
      'l',
    ]),
  ].join('\n');
  const summary = rows.map(
    (r) =>
      `${r.name}: ${r.outcome.ok ? `${fmtRate(r.outcome.value.perSecond)}/s (target ${r.target})` : r.outcome.error}`,
  );
  return { markdown, summary };
}
