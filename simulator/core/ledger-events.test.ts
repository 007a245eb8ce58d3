// The ledger's event list: addEvent (binary search) places every event where the plain walk back from the end did,
// and eventsAt counts what a scan counts, for charges, operation events and refunds arriving as applyChecked sends
// them, and for events out of order (a state journal replay).
import { xdr } from '@stellar/stellar-sdk';
import { describe, expect, it } from 'vitest';
import { Ledger } from './ledger.ts';
import type { LedgerEvent } from './records.ts';

const order = (a: LedgerEvent, b: LedgerEvent): number =>
  a.ledger - b.ledger || a.txIndex - b.txIndex || a.opIndex - b.opIndex || a.eventIndex - b.eventIndex;

/** The placement before the binary search: walk back from the end past every later event. */
function linearAdd(list: LedgerEvent[], e: LedgerEvent): void {
  let i = list.length;
  while (i > 0 && order(list[i - 1]!, e) > 0) i--;
  list.splice(i, 0, e);
}

const linearCount = (list: LedgerEvent[], seq: number, txIndex: number): number =>
  list.filter((e) => e.ledger === seq && e.txIndex === txIndex).length;

const data = xdr.ScVal.scvVoid();
const ev = (ledger: number, txIndex: number, eventIndex: number, opIndex = 0): LedgerEvent => ({
  contractId: 'C',
  topics: [],
  data,
  ledger,
  closeTime: ledger,
  txIndex,
  opIndex,
  eventIndex,
  txHash: `${ledger}-${txIndex}-${eventIndex}`,
});

/** A small deterministic generator (xorshift32), so a failure replays. */
function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 0x1_0000_0000;
  };
}

const REFUND = 0xfffff;

describe('Ledger events', () => {
  it('places and counts as the linear walk does, transaction after transaction', () => {
    for (const seed of [1, 7, 42]) {
      const r = rng(seed);
      const ledger = new Ledger({ passphrase: 'events test', now: () => 0 });
      const ref: LedgerEvent[] = [];
      let seq = 2;
      let order = 0;
      for (let t = 0; t < 300; t++) {
        if (r() < 0.1) {
          seq += 1;
          order = 0;
        }
        order += 1;
        let refunds = ledger.eventsAt(seq, REFUND);
        expect(refunds).toBe(linearCount(ref, seq, REFUND));
        expect(ledger.eventsAt(seq, 0)).toBe(linearCount(ref, seq, 0));
        const batch = [ev(seq, 0, order - 1)];
        if (r() < 0.7) batch.push(ev(seq, REFUND, refunds++));
        const ops = Math.floor(r() * 4);
        for (let i = 0; i < ops; i++) batch.push(ev(seq, order, i));
        for (const e of batch) {
          ledger.addEvent(e);
          linearAdd(ref, e);
        }
        expect(ledger.events).toEqual(ref);
      }
    }
  });

  it('places events arriving out of order as the linear walk does', () => {
    const r = rng(9);
    const ledger = new Ledger({ passphrase: 'events test', now: () => 0 });
    const ref: LedgerEvent[] = [];
    for (let i = 0; i < 500; i++) {
      const e = ev(2 + Math.floor(r() * 5), Math.floor(r() * 4), Math.floor(r() * 3), Math.floor(r() * 2));
      ledger.addEvent(e);
      linearAdd(ref, e);
    }
    expect(ledger.events).toEqual(ref);
    for (let seq = 1; seq < 8; seq++)
      for (let t = 0; t < 5; t++) expect(ledger.eventsAt(seq, t)).toBe(linearCount(ref, seq, t));
  });
});
