// Poll: what getTransaction says of a sent transaction, until it is final or the submit's deadline passes.
import { rpc } from '@stellar/stellar-sdk';
import { metaDiagnostics, opt, readEvents, resultCodes } from './diagnostics.ts';
import { ChainError, errorText, mapChainFailure, type ContractKind } from './errors.ts';
import type { ChainContext } from './rpc.ts';
import type { SubmitResult } from './types.ts';

/** The first waits between getTransaction polls (then `pollIntervalMs`), each capped by `pollIntervalMs`. */
const POLL_BACKOFF_MS: readonly number[] = [50, 100, 200];

/** The wait before the next poll or send: the backoff step, capped by the poll interval and the time left. */
export function backoffMs(ctx: ChainContext, attempt: number, left: number): number {
  return Math.min(ctx.timeouts.pollIntervalMs, POLL_BACKOFF_MS[attempt] ?? Infinity, left);
}

/** Polls getTransaction until the transaction is final (its result, or its failure thrown) or `deadline` passes. */
export async function poll(
  ctx: ChainContext,
  hash: string,
  kind: ContractKind,
  deadline: number,
): Promise<SubmitResult> {
  let lastError: unknown;
  // Ask at once (a fast network, or the simulator, has applied it already), then back off to pollIntervalMs.
  // NOT_FOUND means not in a ledger yet: it may land any time until the deadline.
  for (let attempt = 0; ; attempt++) {
    try {
      const r = await ctx.server.getTransaction(hash);
      ctx.reads.observeLedger(r.latestLedger);
      lastError = undefined;
      const outcome = finalOutcome(r, kind, hash);
      if (outcome) return outcome;
    } catch (e) {
      if (e instanceof ChainError) throw e;
      lastError = e; // the transaction may still land: keep polling until the deadline
    }
    const left = deadline - ctx.now();
    if (left <= 0) {
      if (lastError !== undefined) {
        const text = `chain RPC unavailable while waiting for ${hash}: ${errorText(lastError)}`;
        throw new ChainError('chain_unavailable', 502, text, undefined, hash, ctx.network);
      }
      const text = `transaction ${hash} was not final after ${ctx.timeouts.submitMs} ms`;
      throw new ChainError('tx_timeout', 504, text, undefined, hash, ctx.network);
    }
    await ctx.sleep(backoffMs(ctx, attempt, left));
  }
}

/** What getTransaction says of a transaction in a ledger: its result, or its failure thrown; undefined when it is
 *  not found, or the RPC cannot say. */
export async function landed(ctx: ChainContext, hash: string, kind: ContractKind): Promise<SubmitResult | undefined> {
  let r: rpc.Api.GetTransactionResponse;
  try {
    r = await ctx.server.getTransaction(hash);
  } catch {
    return undefined;
  }
  ctx.reads.observeLedger(r.latestLedger);
  return finalOutcome(r, kind, hash);
}

/** A final getTransaction answer → the submit's result (SUCCESS) or its ChainError thrown (FAILED); else undefined. */
export function finalOutcome(
  r: rpc.Api.GetTransactionResponse,
  kind: ContractKind,
  hash: string,
): SubmitResult | undefined {
  if (r.status === rpc.Api.GetTransactionStatus.SUCCESS) {
    return { txId: hash, ledger: r.ledger, ...opt('returnValue', r.returnValue) };
  }
  if (r.status === rpc.Api.GetTransactionStatus.FAILED) throw failed(r, kind, hash);
  return undefined;
}

/** A FAILED transaction → ChainError from its diagnostic events and result codes, chain's words kept. */
function failed(r: rpc.Api.GetFailedTransactionResponse, kind: ContractKind, hash: string): ChainError {
  const events = [...(r.diagnosticEventsXdr ?? []), ...metaDiagnostics(r.resultMetaXdr)];
  const { contractCode, lines } = readEvents(events);
  const code = safe(() => resultCodes(r.resultXdr)) ?? 'txFailed';
  const text = [...lines, `transaction failed: ${code}`].join('\n');
  return mapChainFailure({ contract: kind, text, txId: hash, ...opt('contractCode', contractCode) });
}

function safe<T>(f: () => T): T | undefined {
  try {
    return f();
  } catch {
    return undefined;
  }
}
