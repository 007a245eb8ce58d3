// Submit: decode and check a signed transaction, send it (again while the network says TRY_AGAIN_LATER), then
// poll for its outcome.
import { FeeBumpTransaction, type Transaction, type rpc } from '@stellar/stellar-sdk';
import { opt, readEvents, resultCodes } from './diagnostics.ts';
import { ChainError, mapChainFailure, type ContractKind } from './errors.ts';
import { checkAuthSignatures, inspectParsed, noValidSignature, parseEnvelope } from './inspect.ts';
import { backoffMs, landed, poll } from './poll.ts';
import { rpcCall, type ChainContext } from './rpc.ts';
import type { ExpectInvocation, Invocation, SubmitResult } from './types.ts';

/** Rejections a transaction already in a ledger gets when it is sent again: its sequence number is used, its time
 *  bounds may have passed. */
const LANDED_REJECTIONS: ReadonlySet<string> = new Set(['txBadSeq', 'txTooLate', 'txFeeBumpInnerFailed']);

/** Checks a signed transaction (signed, signatures verify, `expect` agrees), then sends it and waits for it. */
export async function submit(
  ctx: ChainContext,
  signedXdr: string,
  expect?: ExpectInvocation,
  o?: { contract?: ContractKind },
): Promise<SubmitResult> {
  const parsed = parseEnvelope(signedXdr, ctx.passphrase);
  const inv = inspectParsed(parsed, ctx.caches.signers);
  requireSigned(ctx, parsed, inv);
  checkAuthSignatures(parsed, ctx.passphrase, ctx.caches.signers);
  if (expect) await expect(inv);
  return sendFresh(ctx, parsed, inv, ctx.kindOf(inv.contractId, o?.contract));
}

/** A signed transaction's first checks: it carries a signature, and one of its accounts' verifies (tx_invalid). */
export function requireSigned(
  ctx: ChainContext,
  parsed: Transaction | FeeBumpTransaction,
  inv: Pick<Invocation, 'source' | 'signedBy'>,
): void {
  const inner = parsed instanceof FeeBumpTransaction ? parsed.innerTransaction : parsed;
  if (inner.signatures.length === 0) throw new ChainError('tx_invalid', 400, 'transaction is not signed');
  if (inv.signedBy.length === 0) throw noValidSignature(inv, ctx.passphrase);
}

/**
 * Sends a checked transaction and waits for it. Read-your-writes: nothing read before it is served once it may
 * have landed, and again once it is final (reads sent meanwhile may predate it).
 */
export async function sendFresh(
  ctx: ChainContext,
  parsed: Transaction | FeeBumpTransaction,
  inv: Pick<Invocation, 'hash'>,
  kind: ContractKind,
): Promise<SubmitResult> {
  ctx.reads.clear();
  try {
    return await send(ctx, parsed, inv, kind);
  } finally {
    ctx.reads.clear();
  }
}

/** sendTransaction until the network takes it (then poll), refuses it, or the submit timeout passes. */
export async function send(
  ctx: ChainContext,
  parsed: Transaction | FeeBumpTransaction,
  inv: Pick<Invocation, 'hash'>,
  kind: ContractKind,
): Promise<SubmitResult> {
  const deadline = ctx.now() + ctx.timeouts.submitMs;
  for (let attempt = 0; ; attempt++) {
    const sent = await rpcCall(ctx, () => ctx.server.sendTransaction(parsed));
    ctx.reads.observeLedger(sent.latestLedger);
    const hash = sent.hash || inv.hash;
    // PENDING, or DUPLICATE (it waits in the network's queue already): its outcome is what getTransaction says.
    if (sent.status === 'PENDING' || sent.status === 'DUPLICATE') return poll(ctx, hash, kind, deadline);
    // Sent again once it is in a ledger (a client retrying a submit that landed), a transaction is refused:
    // TRY_AGAIN_LATER while the network bans its hash (about 10 ledgers), then ERROR for its used sequence number
    // or its passed time bounds. What landed is the answer (docs/chain-abi.md "Soroban RPC").
    const rejected = sent.status === 'ERROR' ? rejection(sent, kind, hash) : undefined;
    if (!rejected || LANDED_REJECTIONS.has(rejected.code)) {
      const outcome = await landed(ctx, hash, kind);
      if (outcome) return outcome;
    }
    if (rejected) throw rejected.error;
    // TRY_AGAIN_LATER and not in a ledger: the network did not take it this time (another transaction of the same
    // source waits for a ledger, or its queue is full). The same signed transaction is sent again.
    const left = deadline - ctx.now();
    if (left <= 0) {
      const text =
        `the RPC answered TRY_AGAIN_LATER until the submit timeout (${ctx.timeouts.submitMs} ms); ` +
        `transaction ${hash} was not taken`;
      throw new ChainError('chain_unavailable', 502, text, undefined, hash, ctx.network);
    }
    await ctx.sleep(backoffMs(ctx, attempt, left));
  }
}

/** An ERROR of sendTransaction → its result code and the ChainError that says it. */
export function rejection(
  sent: rpc.Api.SendTransactionResponse,
  kind: ContractKind,
  hash: string,
): { code: string; error: ChainError } {
  const codes = sent.errorResult ? resultCodes(sent.errorResult) : 'unknown result';
  const { contractCode, lines } = readEvents(sent.diagnosticEvents ?? []);
  const error = mapChainFailure({
    contract: kind,
    text: [`transaction rejected: ${codes}`, ...lines].join('\n'),
    txId: hash,
    ...opt('contractCode', contractCode),
  });
  return { code: codes.split('/')[0]!, error };
}
