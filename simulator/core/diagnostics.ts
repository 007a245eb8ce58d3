// Host failures as a real Soroban host reports them: an `Error(Type, Code)` value, diagnostic events, and the
// text soroban-rpc puts in a failed simulation's `error`:
//   HostError: Error(Contract, #25)
//
//   Event log (newest first):
//      0: [Diagnostic Event] contract:C…, topics:[error, Error(Contract, #25)], data:"escalating …"
import { StrKey, xdr } from '@stellar/stellar-sdk';
import { ContractError, HostError } from '../host.ts';
import { strKeyOf } from './scval.ts';
import type { Failure } from './failure.ts';
import type { DiagnosticRec } from './records.ts';

/** A SAC (or other host-implemented contract) error: a contract error number with the host's words as data. */
export class HostContractError extends ContractError {
  readonly detail: xdr.ScVal;
  constructor(code: number, detail: xdr.ScVal, text: string) {
    super(code, text);
    this.detail = detail;
  }
}

/** A host error whose diagnostic data is a structured value (e.g. `["Unauthorized function call for address", G…]`). */
export class DetailedHostError extends HostError {
  readonly detail: xdr.ScVal;
  constructor(message: string, kind: HostError['kind'], detail: xdr.ScVal) {
    super(message, kind);
    this.detail = detail;
  }
}

const CODES: Record<string, () => xdr.ScErrorCode> = {
  ArithDomain: () => xdr.ScErrorCode.scecArithDomain,
  IndexBounds: () => xdr.ScErrorCode.scecIndexBounds,
  InvalidInput: () => xdr.ScErrorCode.scecInvalidInput,
  MissingValue: () => xdr.ScErrorCode.scecMissingValue,
  ExistingValue: () => xdr.ScErrorCode.scecExistingValue,
  ExceededLimit: () => xdr.ScErrorCode.scecExceededLimit,
  InvalidAction: () => xdr.ScErrorCode.scecInvalidAction,
  InternalError: () => xdr.ScErrorCode.scecInternalError,
  UnexpectedType: () => xdr.ScErrorCode.scecUnexpectedType,
  UnexpectedSize: () => xdr.ScErrorCode.scecUnexpectedSize,
};
const TYPES: Record<string, (c: xdr.ScErrorCode) => xdr.ScError> = {
  WasmVm: (c) => xdr.ScError.sceWasmVm(c),
  Context: (c) => xdr.ScError.sceContext(c),
  Storage: (c) => xdr.ScError.sceStorage(c),
  Object: (c) => xdr.ScError.sceObject(c),
  Crypto: (c) => xdr.ScError.sceCrypto(c),
  Events: (c) => xdr.ScError.sceEvents(c),
  Budget: (c) => xdr.ScError.sceBudget(c),
  Value: (c) => xdr.ScError.sceValue(c),
  Auth: (c) => xdr.ScError.sceAuth(c),
};

function errorValue(type: string, code: string): xdr.ScVal {
  if (type === 'Contract') return xdr.ScVal.scvError(xdr.ScError.sceContract(Number(code.replace('#', ''))));
  const t = TYPES[type] ?? TYPES.Context!;
  return xdr.ScVal.scvError(t((CODES[code] ?? CODES.InvalidAction!)()));
}

const DEFAULT_CODE: Record<HostError['kind'], string> = {
  Auth: 'InvalidAction',
  Storage: 'MissingValue',
  Context: 'InvalidAction',
  Value: 'UnexpectedType',
  Budget: 'ExceededLimit',
  Contract: 'InvalidAction',
};

export function classify(e: unknown): Failure {
  if (e instanceof HostContractError) {
    return {
      code: `Error(Contract, #${e.code})`,
      value: errorValue('Contract', String(e.code)),
      contractCode: e.code,
      detail: e.detail,
    };
  }
  if (e instanceof ContractError) {
    return {
      code: `Error(Contract, #${e.code})`,
      value: errorValue('Contract', String(e.code)),
      contractCode: e.code,
      detail: xdr.ScVal.scvString('escalating Ok(ScErrorType::Contract) frame-exit to Err'),
    };
  }
  if (e instanceof HostError) {
    const m = /^Error\((\w+), (#?\w+)\):?\s*(.*)$/s.exec(e.message);
    if (m) {
      const detail = e instanceof DetailedHostError ? e.detail : xdr.ScVal.scvString(m[3] || e.message);
      return { code: `Error(${m[1]}, ${m[2]})`, value: errorValue(m[1]!, m[2]!), detail };
    }
    const kind = e.kind === 'Contract' ? 'Context' : e.kind;
    const code =
      e.kind === 'Storage' && /exist/.test(e.message) && !/non-exist/.test(e.message)
        ? 'ExistingValue'
        : DEFAULT_CODE[e.kind];
    return { code: `Error(${kind}, ${code})`, value: errorValue(kind, code), detail: xdr.ScVal.scvString(e.message) };
  }
  const msg = e instanceof Error ? e.message : String(e);
  return {
    code: 'Error(WasmVm, InvalidAction)',
    value: errorValue('WasmVm', 'InvalidAction'),
    detail: xdr.ScVal.scvString(msg),
  };
}

const sym = (s: string): xdr.ScVal => xdr.ScVal.scvSymbol(s);

/** fn_call / fn_return records build their ScVals only when read (most invocations never render their log). */
class CallRec implements DiagnosticRec {
  readonly inSuccessfulContractCall = true;
  private readonly callee: string;
  private readonly fn: string;
  private readonly args: readonly xdr.ScVal[];
  readonly contractId: string | undefined;
  constructor(callee: string, fn: string, args: readonly xdr.ScVal[], contractId: string | undefined) {
    this.callee = callee;
    this.fn = fn;
    this.args = args;
    this.contractId = contractId;
  }
  get topics(): xdr.ScVal[] {
    return [sym('fn_call'), xdr.ScVal.scvBytes(StrKey.decodeContract(this.callee)), sym(this.fn)];
  }
  get data(): xdr.ScVal {
    return this.args.length === 1 ? this.args[0]! : xdr.ScVal.scvVec([...this.args]);
  }
}

class ReturnRec implements DiagnosticRec {
  readonly inSuccessfulContractCall = true;
  readonly contractId: string;
  private readonly fn: string;
  readonly data: xdr.ScVal;
  constructor(contractId: string, fn: string, data: xdr.ScVal) {
    this.contractId = contractId;
    this.fn = fn;
    this.data = data;
  }
  get topics(): xdr.ScVal[] {
    return [sym('fn_return'), sym(this.fn)];
  }
}

export const diag = {
  fnCall(contractId: string, fn: string, args: readonly xdr.ScVal[], caller?: string): DiagnosticRec {
    return new CallRec(contractId, fn, args, caller);
  },
  fnReturn(contractId: string, fn: string, ret: xdr.ScVal): DiagnosticRec {
    return new ReturnRec(contractId, fn, ret);
  },
  error(contractId: string | undefined, f: Failure, data: xdr.ScVal): DiagnosticRec {
    return { contractId, topics: [sym('error'), f.value], data, inSuccessfulContractCall: false };
  },
};

// ---- rendering (the `Event log` text) --------------------------------------------------------------------------

const MAX_TEXT = 120;

/** A compact, soroban-cli-like rendering of an ScVal. */
export function fmtScVal(v: xdr.ScVal): string {
  switch (v.type) {
    case 'scvBool':
      return String(v.b);
    case 'scvVoid':
      return 'Void';
    case 'scvU32':
      return String(v.u32);
    case 'scvI32':
      return String(v.i32);
    case 'scvU64':
      return v.u64.toString();
    case 'scvI64':
      return v.i64.toString();
    case 'scvTimepoint':
      return v.timepoint.toString();
    case 'scvU128':
    case 'scvI128':
    case 'scvU256':
    case 'scvI256':
      return xdrBigInt(v);
    case 'scvSymbol':
      return v.sym.toString();
    case 'scvString': {
      const s = v.str.toString();
      return JSON.stringify(s.length > MAX_TEXT ? `${s.slice(0, MAX_TEXT)}…` : s);
    }
    case 'scvBytes': {
      const b = Buffer.from(v.bytes.value);
      const hex = b.toString('hex');
      return `Bytes(${hex.length > MAX_TEXT ? `${hex.slice(0, MAX_TEXT)}…` : hex})`;
    }
    case 'scvAddress':
      return strKeyOf(v.address);
    case 'scvVec':
      return `[${(v.vec ?? []).map(fmtScVal).join(', ')}]`;
    case 'scvMap':
      return `{${(v.map ?? []).map((e) => `${fmtScVal(e.key)}: ${fmtScVal(e.val)}`).join(', ')}}`;
    case 'scvError': {
      const err = v.error;
      if (err.type === 'sceContract') return `Error(Contract, #${err.contractCode})`;
      const type = err.type.replace(/^sce/, '');
      return `Error(${type}, ${err.code.name.replace(/^scec/, '')})`;
    }
    default:
      return v.type;
  }
}

function xdrBigInt(v: xdr.ScVal): string {
  if (v.type === 'scvI128' || v.type === 'scvU128') {
    const p = v.type === 'scvI128' ? v.i128 : v.u128;
    const lo = BigInt.asUintN(64, p.lo);
    return ((p.hi << 64n) | lo).toString();
  }
  return v.type;
}

const isFnCall = (t: xdr.ScVal): boolean => t.type === 'scvSymbol' && t.sym.toString() === 'fn_call';

function fmtEvent(d: DiagnosticRec): string {
  const label = d.failed ? '[Failed Diagnostic Event (not emitted)]' : '[Diagnostic Event]';
  const contract = d.contractId ? ` contract:${d.contractId},` : '';
  const topics = d.topics.map((t, i) =>
    // fn_call carries the callee's contract hash as bytes; the CLI shows it as an address
    i === 1 && isFnCall(d.topics[0]!) && t.type === 'scvBytes' ? StrKey.encodeContract(t.bytes.value) : fmtScVal(t),
  );
  return `${label}${contract} topics:[${topics.join(', ')}], data:${fmtScVal(d.data)}`;
}

/** The failure text of a simulation / failed transaction: `HostError: Error(…)` and the event log. */
export function failureText(f: Failure, log: readonly DiagnosticRec[]): string {
  const lines = [...log].reverse().map((d, i) => `   ${i}: ${fmtEvent(d)}`);
  return `HostError: ${f.code}\n\nEvent log (newest first):\n${lines.join('\n')}\n`;
}

/** XDR DiagnosticEvent of a record. */
export function diagnosticXdr(d: DiagnosticRec, keys: { contractHash(c: string): Buffer }): xdr.DiagnosticEvent {
  return new xdr.DiagnosticEvent({
    inSuccessfulContractCall: d.inSuccessfulContractCall,
    event: new xdr.ContractEvent({
      ext: xdr.ExtensionPoint.v0(),
      contractId:
        d.contractId && d.contractId.startsWith('C') ? new xdr.ContractId(keys.contractHash(d.contractId)) : null,
      type: xdr.ContractEventType.diagnostic,
      body: xdr.ContractEventBody.v0(new xdr.ContractEventV0({ topics: [...d.topics], data: d.data })),
    }),
  });
}
