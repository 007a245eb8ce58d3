// sendTransaction: checks a signed envelope as stellar-core would and applies or queues it (PENDING), or answers
// ERROR with its TransactionResult, DUPLICATE or TRY_AGAIN_LATER.
import type { Preexecuted } from '../apply.ts';
import { hashFromEnvelopeXdr } from '../check.ts';
import { xdrBase64 } from '../crypto.ts';
import type { Params, RpcContext } from './context.ts';
import { envelopeOf, requiredString } from './params.ts';
import { invocationKey } from './simulate-transaction.ts';
import { transactionXdr } from './tx-xdr.ts';

/** The recorded simulation of exactly this invocation on an unchanged ledger, taken out of the cache. */
function preexecuted(ctx: RpcContext, env: ReturnType<typeof envelopeOf>): Preexecuted | undefined {
  if (ctx.simulations.size === 0 || env.type !== 'envelopeTypeTx') return undefined;
  const key = invocationKey(ctx.codec, env.v1.tx);
  if (key === undefined) return undefined;
  const pre = ctx.simulations.get(key);
  ctx.simulations.delete(key);
  return pre && pre.version === ctx.ledger.version ? pre : undefined;
}

export function sendTransaction(ctx: RpcContext, p: Params): object {
  const { ledger, codec } = ctx;
  const b64 = requiredString(p, 'transaction');
  // Node's decoder skips what the SDK's refuses (a character outside the alphabet, text after the padding): a text
  // it does not give back unchanged is decoded by the SDK, and not kept as the record's envelope text.
  const raw = Buffer.from(b64, 'base64');
  const canonical = raw.toString('base64') === b64;
  const env = envelopeOf(canonical ? raw : b64);
  hashFromEnvelopeXdr(codec, env, raw, ledger.networkId);
  const pre = preexecuted(ctx, env);
  const out = ctx.net.send(env, { ...(pre ? { pre } : {}), ...(canonical ? { b64 } : {}) });
  if (out.status === 'PENDING' && out.record) {
    // What getTransaction answers for it, built once the reply is on its way (clients poll for it next). A
    // failure here is left to getTransaction, which builds it again and answers the error as before.
    const rec = out.record;
    setImmediate(() => {
      try {
        transactionXdr(codec, rec);
      } catch {
        // see above
      }
    });
  }
  const l = ledger.tick();
  const latest = { latestLedger: l.seq, latestLedgerCloseTime: String(l.closeTime) };
  if (out.status === 'ERROR')
    return { status: 'ERROR', hash: out.hash, errorResultXdr: xdrBase64(out.result), ...latest };
  return { status: out.status, hash: out.hash, ...latest };
}
