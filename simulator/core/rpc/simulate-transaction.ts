// simulateTransaction: runs the transaction's one InvokeHostFunction against the latest ledger and answers its
// footprint, resource fee, auth entries, return value, events and state changes, or the error, as stellar-rpc's
// methods/simulate_transaction.go does: whatever is wrong with the transaction itself (it does not decode, more
// than one operation, a memo, a bad authMode or xdrFormat) is `result.error`, not a JSON-RPC error.
import { xdr } from '@stellar/stellar-sdk';
import { contractEventBytes } from '../apply.ts';
import { credentialsInvalidAt, type AuthMode } from '../auth.ts';
import { muxedToAccount } from '../classic.ts';
import { asBuffer, xdrBase64 } from '../crypto.ts';
import type { SimCodec } from '../entries.ts';
import type { Invocation } from '../invocation.ts';
import { simulateInvoke } from '../simulate.ts';
import { simulateTtlOp, type TtlSimulation } from '../ttl.ts';
import type { Params, RpcContext } from './context.ts';
import { INVALID_PARAMS, RpcError } from './error.ts';
import { envelopeOf, requiredString } from './params.ts';
import { diagnosticsB64 } from './tx-xdr.ts';
import { xdrFormatOf, type XdrFormat } from './xdr-format.ts';

const AUTH_MODES: readonly string[] = ['enforce', 'record', 'record_allow_nonroot'];

/** DiagnosticEvent XDR before its ContractEvent: inSuccessfulContractCall = true. */
const IN_SUCCESSFUL_CALL = Buffer.from([0, 0, 0, 1]);

/** Key of an invocation for the simulation cache: its source and host function. */
export function invocationKey(codec: SimCodec, tx: xdr.Transaction): string | undefined {
  const ops = tx.operations;
  const body = ops[0]?.body;
  if (ops.length !== 1 || ops[0]!.sourceAccount || body?.type !== 'invokeHostFunction') return undefined;
  return `${muxedToAccount(codec, tx.sourceAccount)}|${xdrBase64(body.invokeHostFunctionOp.hostFunction)}`;
}

/** Why the simulator cannot simulate this host function (it runs InvokeContract on a plain contract address). */
function unsupportedHostFunction(hf: xdr.HostFunction): string | undefined {
  if (hf.type === 'hostFunctionTypeCreateContract' || hf.type === 'hostFunctionTypeCreateContractV2') {
    const exec = (hf.type === 'hostFunctionTypeCreateContract' ? hf.createContract : hf.createContractV2).executable;
    if (exec.type === 'contractExecutableExternalRef') {
      return 'CONTRACT_EXECUTABLE_EXTERNAL_REF (CAP-85) executables are not supported by the simulator';
    }
  }
  if (hf.type !== 'hostFunctionTypeInvokeContract')
    return 'only InvokeContract host functions are supported by the simulator';
  const to = hf.invokeContract.contractAddress;
  if (to.type !== 'scAddressTypeContract')
    return `cannot invoke a ${to.type} address: only contract addresses can be invoked`;
  return undefined;
}

/** The envelope, or stellar-rpc's `error` for one that does not decode. */
function decoded(b64: string): xdr.TransactionEnvelope | { error: string } {
  try {
    // Node's decoder is several times faster than the SDK's atob loop, but skips what atob refuses (a character
    // outside the alphabet, text after the padding): only text it gives back unchanged is decoded there.
    const raw = Buffer.from(b64, 'base64');
    return envelopeOf(raw.toString('base64') === b64 ? raw : b64);
  } catch (e) {
    const detail = (e as Error).message.replace(/^invalid_xdr:? ?/, '');
    return { error: `Could not unmarshal transaction${detail ? ` (${detail})` : ''}` };
  }
}

/** stellar-rpc's validateAuthMode: the mode a request may ask for, given the operation's auth entries. */
function authModeProblem(authMode: unknown, hasAuth: boolean): string | undefined {
  if (authMode === undefined || authMode === '') return undefined;
  if (typeof authMode !== 'string' || !AUTH_MODES.includes(authMode))
    return `optional 'authMode' must be one of ${AUTH_MODES.join(',')} when included`;
  if (hasAuth && authMode !== 'enforce') return `cannot set authMode to '${authMode}' with an auth footprint`;
  return undefined;
}

type Target = { tx: xdr.Transaction; op: xdr.Operation; body: xdr.InvokeHostFunctionOp; call: xdr.InvokeContractArgs };

/** An ExtendFootprintTTL or RestoreFootprint to simulate over the footprint the transaction declares. */
type TtlTarget = { ttlOp: xdr.Operation; footprint: xdr.LedgerFootprint };

/** The invocation a request asks to simulate, or the error stellar-rpc answers in `result.error`. */
function invocationOf(ctx: RpcContext, p: Params): Target | TtlTarget | { error: string } {
  const env = decoded(requiredString(p, 'transaction'));
  if ('error' in env) return env;
  if (env.type !== 'envelopeTypeTx') return { error: 'only v1 transaction envelopes can be simulated' };
  const tx = env.v1.tx;
  if (tx.operations.length !== 1) return { error: 'Transaction contains more than one operation' };
  if (tx.memo.type !== 'memoNone')
    return { error: 'Transaction contains a memo. Soroban transactions do not support memos.' };
  const op = tx.operations[0]!;
  if (op.body.type === 'extendFootprintTtl' || op.body.type === 'restoreFootprint') {
    const ext = tx.ext;
    if (ext.type !== 'sorobanData')
      return {
        error:
          'To perform a SimulateTransaction for ExtendFootprintTtl or RestoreFootprint operations, SorobanTransactionData must be provided',
      };
    return { ttlOp: op, footprint: ext.sorobanData.resources.footprint };
  }
  if (op.body.type !== 'invokeHostFunction')
    return { error: `Transaction contains unsupported operation type: ${op.body.type}` };
  const body = op.body.invokeHostFunctionOp;
  const authProblem = authModeProblem(p.authMode, body.auth.length > 0);
  if (authProblem) return { error: authProblem };
  const hf = body.hostFunction;
  const unsupported = unsupportedHostFunction(hf);
  if (unsupported !== undefined || hf.type !== 'hostFunctionTypeInvokeContract')
    return { error: unsupported ?? 'only InvokeContract host functions are supported by the simulator' };
  const invalid = credentialsInvalidAt(body.auth, ctx.ledger.protocol);
  if (invalid) return { error: `transaction is invalid: ${invalid}` };
  return { tx, op, body, call: hf.invokeContract };
}

/** `resourceConfig.instructionLeeway` (stellar-rpc decodes it as a uint64: anything else is -32602). */
function leewayOf(p: Params): number {
  const config = p.resourceConfig ?? {};
  const leeway = (config as { instructionLeeway?: unknown }).instructionLeeway ?? 0;
  if (typeof config !== 'object' || typeof leeway !== 'number' || !Number.isSafeInteger(leeway) || leeway < 0)
    throw new RpcError(INVALID_PARAMS, 'resourceConfig.instructionLeeway must be a non-negative integer');
  return leeway;
}

/** `{[name]: list}`, or nothing for an empty list: a Go slice field with `omitempty`. */
const listed = <T>(name: string, list: readonly T[]): Record<string, readonly T[]> =>
  list.length > 0 ? { [name]: list } : {};

/**
 * What the invocation changed, as stellar-rpc's `stateChanges` (methods/simulate_transaction.go
 * `LedgerEntryChangeFromXDRDiff`, go-stellar-sdk `protocol.LedgerEntryChange`): base64 is `{type, key, before,
 * after}`, an absent entry `null`. In json `key` (omitempty) is left out for `keyJson`, and `before`/`after` (pointers
 * without omitempty) are `null` beside `beforeJson`/`afterJson`, which are left out where there is no entry.
 */
function stateChanges(ctx: RpcContext, inv: Invocation, format: XdrFormat): object[] {
  const out: object[] = [];
  for (const id of [...inv.writes].sort()) {
    const before = ctx.ledger.get(id);
    const after = inv.overlayEntry(id) ?? undefined;
    if (!before && !after) continue;
    const type = before ? (after ? 'updated' : 'deleted') : 'created';
    const key = ctx.codec.keyBase64(id, inv.keyVals.get(id));
    const b = before ? ctx.codec.entryBase64(before) : null;
    const a = after ? ctx.codec.entryBase64(after) : null;
    if (format === 'base64') out.push({ type, key, before: b, after: a });
    else {
      const entry = (name: string, x: string | null) =>
        x === null ? {} : { [name]: ctx.json.toJson('LedgerEntry', x) };
      out.push({
        type,
        keyJson: ctx.json.toJson('LedgerKey', key),
        before: null,
        ...entry('beforeJson', b),
        after: null,
        ...entry('afterJson', a),
      });
    }
  }
  return out;
}

export function simulateTransaction(ctx: RpcContext, p: Params): object {
  const { ledger, codec } = ctx;
  const format = xdrFormatOf(p);
  if (typeof format !== 'string') return { latestLedger: ledger.tick().seq, error: format.refused };
  const upgraded = p.useUpgradedAuth;
  if (upgraded !== undefined && typeof upgraded !== 'boolean')
    throw new RpcError(INVALID_PARAMS, 'useUpgradedAuth must be a boolean');
  const instructionLeeway = leewayOf(p);
  const target = invocationOf(ctx, p);
  if ('error' in target) return { latestLedger: ledger.tick().seq, error: target.error };
  if ('ttlOp' in target) return ttlAnswer(ctx, simulateTtlOp(ctx.net, target.ttlOp, target.footprint), format);
  const { tx, op, body, call } = target;
  const opSource = op.sourceAccount;
  const sim = simulateInvoke(ctx.net, {
    source: muxedToAccount(codec, opSource ?? tx.sourceAccount),
    contractId: codec.fromScAddress(call.contractAddress),
    fn: call.functionName.toString(),
    args: call.args,
    authMode: (p.authMode || undefined) as AuthMode | undefined,
    authEntries: body.auth,
    upgradedAuth: upgraded,
    instructionLeeway,
  });
  if (!sim.ok) {
    const events = diagnosticsB64(codec, sim.log);
    const encoded =
      format === 'json'
        ? listed(
            'eventsJson',
            events.map((e) => ctx.json.toJson('DiagnosticEvent', e)),
          )
        : listed('events', events);
    return { error: sim.error, ...encoded, latestLedger: sim.latestLedger };
  }
  if (sim.inv.auth.mode === 'record' && !opSource) {
    const key = invocationKey(codec, tx);
    if (key) ctx.simulations.set(key, { inv: sim.inv, retval: sim.retval, auth: sim.auth, version: sim.version });
  }
  // contract events only (the fn_call / fn_return trace would re-encode every argument)
  const events = sim.events.map((e) =>
    Buffer.concat([IN_SUCCESSFUL_CALL, contractEventBytes(codec, e)]).toString('base64'),
  );
  const auth = sim.auth.map(xdrBase64);
  const retval = asBuffer(codec.xdrOf(sim.retval)).toString('base64');
  const data = xdrBase64(sim.transactionData);
  const json = (type: string) => (b64: string) => ctx.json.toJson(type, b64);
  const changes = stateChanges(ctx, sim.inv, format);
  // `auth` is a pointer to a slice (an empty list is sent); `authJson`, the events and `stateChanges` are slices
  // with omitempty (an empty one is left out): go-stellar-sdk SimulateTransactionResponse, SimulateHostFunctionResult
  const encoded =
    format === 'json'
      ? {
          transactionDataJson: json('SorobanTransactionData')(data),
          ...listed('eventsJson', events.map(json('DiagnosticEvent'))),
          results: [
            {
              ...listed('authJson', auth.map(json('SorobanAuthorizationEntry'))),
              returnValueJson: json('ScVal')(retval),
            },
          ],
        }
      : { transactionData: data, ...listed('events', events), results: [{ auth, xdr: retval }] };
  return {
    ...encoded,
    minResourceFee: sim.minResourceFee.toString(),
    ...listed('stateChanges', changes),
    latestLedger: sim.latestLedger,
  };
}

/** stellar-rpc's answer for a TTL operation: no results, no state changes; a restore preamble when an extension
 *  meets archived entries. */
function ttlAnswer(ctx: RpcContext, sim: TtlSimulation, format: XdrFormat): object {
  const data = (d: xdr.SorobanTransactionData) =>
    format === 'json'
      ? { transactionDataJson: ctx.json.toJson('SorobanTransactionData', xdrBase64(d)) }
      : { transactionData: xdrBase64(d) };
  const pre = sim.restorePreamble;
  return {
    ...data(sim.transactionData),
    minResourceFee: sim.minResourceFee.toString(),
    ...(pre
      ? { restorePreamble: { ...data(pre.transactionData), minResourceFee: pre.minResourceFee.toString() } }
      : {}),
    latestLedger: ctx.ledger.tick().seq,
  };
}
