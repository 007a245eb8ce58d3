// The developer cheats, under `sim_`: fund an account, move the clock, close a ledger, snapshot and revert, and
// what the network is (ids, the admin and issuer keys).
import type { Params, RpcContext } from './context.ts';
import { INVALID_PARAMS, RpcError } from './error.ts';
import { requiredString } from './params.ts';

/** Runs `f`, answering its Error as -32602 with the error's message. */
function asInvalidParams<T>(f: () => T): T {
  try {
    return f();
  } catch (e) {
    throw new RpcError(INVALID_PARAMS, (e as Error).message);
  }
}

export function simFund({ net }: RpcContext, p: Params): object {
  const address = requiredString(p, 'address');
  const asset = (p.asset ?? 'native') as string;
  if (asset !== 'native' && asset !== 'USDC') throw new RpcError(INVALID_PARAMS, "asset must be 'native' or 'USDC'");
  let amount: bigint | undefined;
  if (p.amount !== undefined) {
    try {
      amount = BigInt(p.amount as string | number);
    } catch {
      throw new RpcError(INVALID_PARAMS, 'amount must be an integer number of stroops');
    }
  }
  const balance = asInvalidParams(() => net.fund(address, amount, asset));
  return { address, asset, balance: balance.toString() };
}

export function simSetTime({ net }: RpcContext, p: Params): object {
  const t = p.unixSeconds;
  if (typeof t !== 'number' || !Number.isInteger(t) || t < 0)
    throw new RpcError(INVALID_PARAMS, 'unixSeconds must be a non-negative integer');
  return asInvalidParams(() => net.setTime(t));
}

export const simCloseLedger = ({ net }: RpcContext): object => net.closeLedger();

export const simSnapshot = ({ net }: RpcContext): string => net.snapshot();

export function simRevert({ net }: RpcContext, p: Params): boolean {
  const id = String(p.id ?? '');
  if (!net.revert(id)) throw new RpcError(INVALID_PARAMS, `unknown snapshot id ${JSON.stringify(id)}`);
  return true;
}

export function simInfo({ net, ledger }: RpcContext): object {
  return {
    ...net.info,
    friendbot: net.genesis.friendbot.publicKey(),
    ...(net.genesis.stablecoin
      ? { stablecoinIssuerSecret: net.genesis.issuer.secret(), stablecoinTokenId: net.genesis.stablecoin.tokenId }
      : {}),
    latestLedger: ledger.tick().seq,
    ledgerCloseMs: ledger.ledgerCloseMs,
  };
}
