// The Soroban RPC client of the service: prepare (build → simulate → assemble), read (simulate as the
// simulation account), submit (decode → check → send → poll). Every failure becomes a ChainError. Each step is a
// module of its own (rpc.ts, prepare.ts, submit.ts, poll.ts, reads.ts) over one shared ChainContext.
import { inspectTransaction } from './inspect.ts';
import { loadSequence, prepare } from './prepare.ts';
import { getEvents, getLedgerEntries, health, read, readFootprint, verifyNetwork } from './reads.ts';
import { createChainContext } from './rpc.ts';
import { submit } from './submit.ts';
import { prepareTtl, submitTtl } from './ttl.ts';
import type { ChainClient, ChainClientOptions } from './types.ts';

export function createChainClient(opts: ChainClientOptions): ChainClient {
  const ctx = createChainContext(opts);
  return {
    network: opts.network,
    networkPassphrase: ctx.passphrase,
    get protocolVersion() {
      return ctx.protocolVersion;
    },
    rpcUrl: opts.rpcUrl,
    prepare: (req) => prepare(ctx, req),
    sequence: (source) => loadSequence(ctx, source),
    read: (req) => read(ctx, req),
    readFootprint: (req) => readFootprint(ctx, req),
    submit: (signedXdr, expect, o) => submit(ctx, signedXdr, expect, o),
    prepareTtl: (req) => prepareTtl(ctx, req),
    submitTtl: (signedXdr, expect) => submitTtl(ctx, signedXdr, expect),
    inspect: (signedXdr) => inspectTransaction(signedXdr, ctx.passphrase, ctx.caches.signers),
    getLedgerEntries: (keys, o) => getLedgerEntries(ctx, keys, o),
    getEvents: (request) => getEvents(ctx, request),
    health: () => health(ctx),
    verifyNetwork: () => verifyNetwork(ctx),
  };
}
