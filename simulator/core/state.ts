// The state file: every live ledger entry (as LedgerEntry XDR), the ledger header and clock offset, and the most
// recent transactions and events, so a QA session resumes where it stopped. JSON, one object per network.
import { xdr } from '@stellar/stellar-sdk';
import { entryFromXdr, entryKeyId, entryXdr, liveUntilOf, type AccountEntry } from './entries.ts';
import { lazyEnvelope, type LedgerEvent, type TxRecord } from './records.ts';
import type { SimNetwork } from './network.ts';
import { classify } from './diagnostics.ts';

export const STATE_FORMAT = 'credential-vault-simulator-state';
const KEEP_TXS = 1_000;
const KEEP_EVENTS = 10_000;

interface SavedTx {
  hash: string;
  ledger: number;
  createdAt: number;
  order: number;
  status: 'SUCCESS' | 'FAILED';
  feeCharged: string;
  soroban: boolean;
  envelope: string;
  result: string;
  meta: string;
  returnValue?: string;
  error?: string;
  events: { contractId: string; topics: string[]; data: string }[];
}

export interface SavedNetwork {
  passphrase: string;
  factoryId: string;
  ledger: {
    seq: number;
    closeTime: number;
    hash: string;
    prevHash: string;
    timeOffsetMs: number;
    feePool: string;
    oldestLedger: number;
    oldestCloseTime: number;
  };
  entries: [string, number?][];
  transactions: SavedTx[];
  events: { ledger: number; closeTime: number; txIndex: number; opIndex: number; eventIndex: number; txHash: string; contractId: string; topics: string[]; data: string }[];
}

export interface SavedState {
  format: typeof STATE_FORMAT;
  version: 1;
  savedAt: string;
  networks: Record<string, SavedNetwork>;
}

export function saveNetwork(net: SimNetwork, txXdr: (rec: TxRecord) => { envelopeXdr: string; resultXdr: string; resultMetaXdr: string }): SavedNetwork {
  const l = net.ledger;
  const latest = l.tick();
  const entries: [string, number?][] = [];
  for (const e of l.entries.values()) {
    if (e.t === 'data' && e.durability === 'temporary' && e.liveUntil < latest.seq) continue;
    const live = liveUntilOf(e);
    entries.push(live === undefined ? [entryXdr(e).toXdr('base64')] : [entryXdr(e).toXdr('base64'), live]);
  }
  const txs = [...l.txs.values()].slice(-KEEP_TXS);
  return {
    passphrase: l.passphrase,
    factoryId: net.info.factoryId,
    ledger: {
      seq: latest.seq,
      closeTime: latest.closeTime,
      hash: latest.hash.toString('hex'),
      prevHash: latest.prevHash.toString('hex'),
      timeOffsetMs: l.timeOffsetMs,
      feePool: l.feePool.toString(),
      oldestLedger: txs[0]?.ledger ?? latest.seq,
      oldestCloseTime: txs[0]?.createdAt ?? latest.closeTime,
    },
    entries,
    transactions: txs.map((t) => {
      const x = txXdr(t);
      return {
        hash: t.hash,
        ledger: t.ledger,
        createdAt: t.createdAt,
        order: t.applicationOrder,
        status: t.status,
        feeCharged: t.feeCharged.toString(),
        soroban: t.soroban,
        envelope: x.envelopeXdr,
        result: x.resultXdr,
        meta: x.resultMetaXdr,
        ...(t.returnValue ? { returnValue: t.returnValue.toXdr('base64') } : {}),
        ...(t.error ? { error: t.error } : {}),
        events: t.events.map((e) => ({ contractId: e.contractId, topics: e.topics.map((x) => x.toXdr('base64')), data: e.data.toXdr('base64') })),
      };
    }),
    events: l.events.slice(-KEEP_EVENTS).map((e) => ({
      ledger: e.ledger,
      closeTime: e.closeTime,
      txIndex: e.txIndex,
      opIndex: e.opIndex,
      eventIndex: e.eventIndex,
      txHash: e.txHash,
      contractId: e.contractId,
      topics: e.topics.map((x) => x.toXdr('base64')),
      data: e.data.toXdr('base64'),
    })),
  };
}

const sc = (b64: string): xdr.ScVal => xdr.ScVal.fromXdr(b64, 'base64');

export function loadNetwork(net: SimNetwork, s: SavedNetwork): void {
  if (s.passphrase !== net.info.passphrase || s.factoryId !== net.info.factoryId) {
    throw new Error(`state file does not match the ${net.name} network of this simulator (passphrase or factory id differ)`);
  }
  const l = net.ledger;
  l.version += 1;
  l.entries = new Map();
  for (const [b64, live] of s.entries) {
    const e = entryFromXdr(xdr.LedgerEntry.fromXdr(b64, 'base64'), live ?? 0);
    l.entries.set(entryKeyId(e), e);
  }
  l.latest = {
    seq: s.ledger.seq,
    closeTime: s.ledger.closeTime,
    hash: Buffer.from(s.ledger.hash, 'hex'),
    prevHash: Buffer.from(s.ledger.prevHash, 'hex'),
    txCount: 0,
    sealed: true,
  };
  l.timeOffsetMs = s.ledger.timeOffsetMs;
  l.feePool = BigInt(s.ledger.feePool);
  l.oldestLedger = s.ledger.oldestLedger;
  l.oldestCloseTime = s.ledger.oldestCloseTime;
  l.txs = new Map();
  const placeholder: AccountEntry = { t: 'account', id: '', balance: 0n, seqNum: 0n, numSubEntries: 0, lm: 0 };
  for (const t of s.transactions) {
    const result = t.result;
    const env = xdr.TransactionEnvelope.fromXdr(t.envelope, 'base64'); // checked here, kept as text
    const rec: TxRecord = lazyEnvelope({
      hash: t.hash,
      ledger: t.ledger,
      createdAt: t.createdAt,
      applicationOrder: t.order,
      status: t.status,
      opCount: env.type === 'envelopeTypeTx' ? env.v1.tx.operations.length : 1,
      feeCharged: BigInt(t.feeCharged),
      opResults: () => opResultsOf(xdr.TransactionResult.fromXdr(result, 'base64')),
      returnValue: t.returnValue ? sc(t.returnValue) : undefined,
      soroban: t.soroban,
      events: t.events.map((e) => ({ contractId: e.contractId, topics: e.topics.map(sc), data: sc(e.data) })),
      diagnostics: [],
      feeChange: { before: placeholder, after: placeholder },
      opChanges: [],
      error: t.error,
      failure: t.error ? classifyText(t.error) : undefined,
      cache: { envelope: t.envelope, result: t.result, meta: t.meta },
    });
    l.txs.set(rec.hash, rec);
  }
  l.events = s.events.map(
    (e): LedgerEvent => ({ ...e, topics: e.topics.map(sc), data: sc(e.data) }),
  );
}

/** The failure of a saved failed transaction, recovered from its text. */
function classifyText(text: string) {
  const m = /Error\(Contract, #(\d+)\)/.exec(text);
  const f = classify(new Error(text));
  return m ? { ...f, code: `Error(Contract, #${m[1]})`, contractCode: Number(m[1]) } : f;
}

/** The operation results of a stored TransactionResult (none for the arms without them). */
function opResultsOf(r: xdr.TransactionResult): xdr.OperationResult[] {
  const res = r.result;
  return res.type === 'txSuccess' || res.type === 'txFailed' ? res.results : [];
}
