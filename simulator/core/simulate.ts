// Simulation (soroban-rpc's simulateTransaction): run the invocation against the ledger the transaction would land
// in, without committing, and report the return value, the auth entries to sign (recording mode), the footprint
// of every entry touched, the resources and the minimum resource fee. Also the resource/fee model used to check
// a submitted transaction's declared resources.
import { xdr } from '@stellar/stellar-sdk';
import { recordedCredentialType, type AuthMode } from './auth.ts';
import { failureText } from './diagnostics.ts';
import type { Failure } from './failure.ts';
import type { Entry } from './entries.ts';
import { Invocation, type ContractRegistry } from './invocation.ts';
import type { Ledger } from './ledger.ts';
import type { ContractEventRec, DiagnosticRec } from './records.ts';

/** What a network's host needs: its ledger and its contract implementations. */
export interface Core {
  readonly ledger: Ledger;
  readonly contracts: ContractRegistry;
}

export interface Resources {
  readonly instructions: number;
  readonly diskReadBytes: number;
  readonly writeBytes: number;
  readonly readOnly: number;
  readonly readWrite: number;
}

/** The resource fee (stroops) for declared resources: a fixed schedule, roughly the public network's rates. */
export function resourceFee(r: Resources): bigint {
  const instr = Math.ceil((r.instructions * 25) / 10_000);
  const entries = 6_250 * (r.readOnly + r.readWrite) + 10_000 * r.readWrite;
  const read = Math.ceil((r.diskReadBytes * 1_786) / 1_024);
  const write = Math.ceil((r.writeBytes * 11_800) / 1_024);
  return BigInt(instr + entries + read + write + 1);
}

/** Rent for keeping `bytes` live `ledgers` more ledgers: a fixed schedule like the simulator's other fees (not the
 *  network's rent formula, which depends on the state size): 1 stroop per KiB per 1,000 ledgers (persistent;
 *  temporary half), so a 300-byte credential restored for 2,073,600 ledgers costs about 600 stroops. */
export function rentFee(bytes: number, ledgers: number, temporary = false): bigint {
  if (ledgers <= 0) return 0n;
  return BigInt(Math.ceil((bytes * ledgers) / (1024 * 1000) / (temporary ? 2 : 1)));
}

export function declaredResources(d: xdr.SorobanTransactionData): Resources {
  const r = d.resources;
  return {
    instructions: r.instructions,
    diskReadBytes: r.diskReadBytes,
    writeBytes: r.writeBytes,
    readOnly: r.footprint.readOnly.length,
    readWrite: r.footprint.readWrite.length,
  };
}

function approxScValSize(v: xdr.ScVal): number {
  switch (v.type) {
    case 'scvString':
      return 8 + v.str.length;
    case 'scvSymbol':
      return 8 + v.sym.length;
    case 'scvBytes':
      return 8 + v.bytes.value.length;
    case 'scvVec':
      return 8 + (v.vec ?? []).reduce((n, x) => n + approxScValSize(x), 0);
    case 'scvMap':
      return 8 + (v.map ?? []).reduce((n, e) => n + approxScValSize(e.key) + approxScValSize(e.val), 0);
    case 'scvAddress':
      return 40;
    default:
      return 20;
  }
}

export function approxEntrySize(e: Entry | undefined): number {
  if (!e) return 0;
  switch (e.t) {
    case 'account':
      return 92;
    case 'trustline':
      return 120;
    case 'data':
      return 80 + approxScValSize(e.key) + approxScValSize(e.val);
    case 'instance': {
      let n = 100;
      for (const s of e.storage.values()) n += approxScValSize(s.key) + approxScValSize(s.val);
      return n;
    }
  }
}

const isClassic = (key: string): boolean => key.startsWith('a|') || key.startsWith('t|');

/** Resources an invocation used (deterministic in the work done, so simulation and application agree). */
export function measure(inv: Invocation): Resources {
  let diskReadBytes = 0;
  let readOnly = 0;
  for (const k of inv.reads) {
    if (inv.writes.has(k)) continue;
    readOnly += 1;
    if (isClassic(k)) diskReadBytes += approxEntrySize(inv.ledger.get(k)) || 100;
  }
  let writeBytes = 0;
  for (const k of inv.writes) {
    const e = inv.overlayEntry(k);
    if (e) writeBytes += approxEntrySize(e);
  }
  for (const k of inv.writes) if (isClassic(k)) diskReadBytes += approxEntrySize(inv.ledger.get(k)) || 100;
  return {
    instructions: 2_000_000 + 500_000 * inv.calls + 60_000 * inv.storageOps,
    diskReadBytes,
    writeBytes: writeBytes + 64 * inv.writes.size,
    readOnly,
    readWrite: inv.writes.size,
  };
}

export interface InvokeSpec {
  readonly source: string;
  readonly contractId: string;
  readonly fn: string;
  readonly args: xdr.ScVal[];
  readonly authMode?: AuthMode;
  readonly authEntries?: readonly xdr.SorobanAuthorizationEntry[];
  /** The request asked for ADDRESS_V2 entries (`useUpgradedAuth`); ignored before Protocol 27. */
  readonly upgradedAuth?: boolean;
  /** Extra instructions to budget (`resourceConfig.instructionLeeway`), added to the measured ones. */
  readonly instructionLeeway?: number;
}

export type SimOutcome =
  | {
      readonly ok: true;
      readonly latestLedger: number;
      readonly retval: xdr.ScVal;
      readonly auth: xdr.SorobanAuthorizationEntry[];
      readonly transactionData: xdr.SorobanTransactionData;
      readonly minResourceFee: bigint;
      readonly events: readonly ContractEventRec[];
      readonly log: readonly DiagnosticRec[];
      /** The invocation itself (uncommitted), for submitting it without running it again. */
      readonly inv: Invocation;
      /** Ledger version the invocation ran against. */
      readonly version: number;
    }
  | {
      readonly ok: false;
      readonly latestLedger: number;
      readonly error: string;
      readonly failure: Failure;
      readonly log: readonly DiagnosticRec[];
    };

export function simulateInvoke(core: Core, spec: InvokeSpec): SimOutcome {
  const latestLedger = core.ledger.tick().seq;
  const next = core.ledger.nextTxLedger();
  const mode = spec.authMode ?? (spec.authEntries?.length ? 'enforce' : 'record');
  const inv = new Invocation({
    ledger: core.ledger,
    contracts: core.contracts,
    seq: next.seq,
    closeTime: next.closeTime,
    mode,
    source: spec.source,
    authEntries: spec.authEntries,
  });
  let retval: xdr.ScVal;
  try {
    retval = inv.invoke(spec.contractId, spec.fn, spec.args);
  } catch (e) {
    const failure = inv.failureOf(e);
    return { ok: false, latestLedger, error: failureText(failure, inv.log), failure, log: inv.log };
  }
  const measured = measure(inv);
  const res = { ...measured, instructions: measured.instructions + (spec.instructionLeeway ?? 0) };
  const ro: string[] = [];
  for (const k of inv.reads) if (!inv.writes.has(k)) ro.push(k);
  const lk = (id: string): xdr.LedgerKey => core.ledger.codec.cachedLedgerKey(id, inv.keyVals.get(id));
  const readOnly = ro.sort().map(lk);
  const rwIds = [...inv.writes].sort();
  const readWrite = rwIds.map(lk);
  // Archived entries the run met were restored (soroban-simulation's auto-restoring snapshot): they go into the
  // restore list by their index in the read-write footprint, and their restoration's rent into the fee (CAP-66).
  const archived: number[] = [];
  let rent = 0n;
  rwIds.forEach((id, i) => {
    if (!inv.hasRestored(id)) return;
    archived.push(i);
    rent += rentFee(approxEntrySize(inv.overlayEntry(id) ?? undefined), core.ledger.ttl.minPersistentTTL);
  });
  const minResourceFee = resourceFee(res) + rent;
  const transactionData = new xdr.SorobanTransactionData({
    ext:
      archived.length > 0
        ? xdr.SorobanTransactionDataExt.resourceExt(new xdr.SorobanResourcesExtV0({ archivedSorobanEntries: archived }))
        : xdr.SorobanTransactionDataExt.v0(),
    resources: new xdr.SorobanResources({
      footprint: new xdr.LedgerFootprint({ readOnly, readWrite }),
      instructions: res.instructions,
      diskReadBytes: res.diskReadBytes,
      writeBytes: res.writeBytes,
    }),
    resourceFee: minResourceFee,
  });
  return {
    ok: true,
    latestLedger,
    retval,
    auth:
      mode === 'enforce'
        ? [...(spec.authEntries ?? [])]
        : inv.auth.recordedEntries(recordedCredentialType(core.ledger.protocol, spec.upgradedAuth)),
    transactionData,
    minResourceFee,
    events: inv.events,
    log: inv.log,
    inv,
    version: core.ledger.version,
  };
}

/** A read-only call on the current state (no transaction, nothing committed). */
export function readCall(
  core: Core,
  contractId: string,
  fn: string,
  args: xdr.ScVal[],
): { ok: true; retval: xdr.ScVal } | { ok: false; error: string; failure: Failure } {
  const next = core.ledger.nextTxLedger();
  const inv = new Invocation({
    ledger: core.ledger,
    contracts: core.contracts,
    seq: next.seq,
    closeTime: next.closeTime,
    mode: 'record_allow_nonroot',
  });
  try {
    return { ok: true, retval: inv.invoke(contractId, fn, args) };
  } catch (e) {
    const failure = inv.failureOf(e);
    return { ok: false, error: failureText(failure, inv.log), failure };
  }
}
