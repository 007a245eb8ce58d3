// A ledger's header as XDR, and its hash: the SHA-256 of the LedgerHeader XDR, as on the network (a ledger's `id`
// and `hash` in getLatestLedger and getLedgers, and the next ledger's previousLedgerHash). A leaf module: the
// ledger hashes each header it opens with it, and ledger-xdr.ts serves the same header.
import { xdr } from '@stellar/stellar-sdk';
import { sha256 } from './crypto.ts';

export const BASE_FEE = 100;
export const BASE_RESERVE = 5_000_000n;
export const TOTAL_COINS = 1_000_000_000_000_000_000n;

const ZERO = Buffer.alloc(32);

/** What a simulated ledger header holds (the rest is fixed: no transaction set hashes, no bucket list). */
export interface HeaderFields {
  readonly seq: number;
  readonly closeTime: number;
  readonly prevHash: Buffer;
  /** The network's fee pool when the ledger opened. */
  readonly feePool: bigint;
}

export function ledgerHeaderXdr(protocol: number, h: HeaderFields): xdr.LedgerHeader {
  return new xdr.LedgerHeader({
    ledgerVersion: protocol,
    previousLedgerHash: h.prevHash,
    scpValue: new xdr.StellarValue({
      txSetHash: ZERO,
      closeTime: BigInt(h.closeTime),
      upgrades: [],
      ext: xdr.StellarValueExt.stellarValueBasic(),
    }),
    txSetResultHash: ZERO,
    bucketListHash: ZERO,
    ledgerSeq: h.seq,
    totalCoins: TOTAL_COINS,
    feePool: h.feePool,
    inflationSeq: 0,
    idPool: 0n,
    baseFee: BASE_FEE,
    baseReserve: Number(BASE_RESERVE),
    maxTxSetSize: 1000,
    skipList: [ZERO, ZERO, ZERO, ZERO],
    ext: xdr.LedgerHeaderExt.v0(),
  });
}

/** The ledger's hash: SHA-256 of its LedgerHeader XDR. */
export const ledgerHash = (protocol: number, h: HeaderFields): Buffer => sha256(ledgerHeaderXdr(protocol, h).toXDR());
