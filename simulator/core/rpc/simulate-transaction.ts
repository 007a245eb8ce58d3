// simulateTransaction: runs the transaction's one InvokeHostFunction against the latest ledger and answers its
// footprint, resource fee, auth entries, return value and events, or the host's error.
import { xdr } from '@stellar/stellar-sdk';
import { contractEventXdr } from '../apply.ts';
import { credentialsInvalidAt, type AuthMode } from '../auth.ts';
import { muxedToAccount } from '../classic.ts';
import type { SimCodec } from '../entries.ts';
import { simulateInvoke } from '../simulate.ts';
import type { Params, RpcContext } from './context.ts';
import { INVALID_PARAMS, RpcError } from './error.ts';
import { envelopeOf, requiredString } from './params.ts';
import { diagnosticsB64 } from './tx-xdr.ts';

const AUTH_MODES: readonly string[] = ['enforce', 'record', 'record_allow_nonroot'];

/** Key of an invocation for the simulation cache: its source and host function. */
export function invocationKey(codec: SimCodec, tx: xdr.Transaction): string | undefined {
  const ops = tx.operations;
  const body = ops[0]?.body;
  if (ops.length !== 1 || ops[0]!.sourceAccount || body?.type !== 'invokeHostFunction') return undefined;
  return `${muxedToAccount(codec, tx.sourceAccount)}|${body.invokeHostFunctionOp.hostFunction.toXdr('base64')}`;
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

/** The invocation a transaction asks to simulate, or the error stellar-rpc answers in `result.error`. */
function invocationOf(
  ctx: RpcContext,
  env: xdr.TransactionEnvelope,
):
  | { tx: xdr.Transaction; op: xdr.Operation; body: xdr.InvokeHostFunctionOp; call: xdr.InvokeContractArgs }
  | { error: string } {
  if (env.type !== 'envelopeTypeTx') return { error: 'only v1 transaction envelopes can be simulated' };
  const tx = env.v1.tx;
  const ops = tx.operations;
  const body = ops[0]?.body;
  if (ops.length !== 1 || body?.type !== 'invokeHostFunction')
    return {
      error: 'Transaction contains unsupported operation type (the simulator simulates one InvokeHostFunction)',
    };
  const hf = body.invokeHostFunctionOp.hostFunction;
  const unsupported = unsupportedHostFunction(hf);
  if (unsupported !== undefined || hf.type !== 'hostFunctionTypeInvokeContract')
    return { error: unsupported ?? 'only InvokeContract host functions are supported by the simulator' };
  const invalid = credentialsInvalidAt(body.invokeHostFunctionOp.auth, ctx.ledger.protocol);
  if (invalid) return { error: `transaction is invalid: ${invalid}` };
  return { tx, op: ops[0]!, body: body.invokeHostFunctionOp, call: hf.invokeContract };
}

export function simulateTransaction(ctx: RpcContext, p: Params): object {
  const { ledger, codec } = ctx;
  const env = envelopeOf(requiredString(p, 'transaction'));
  const authMode = p.authMode as AuthMode | undefined;
  if (authMode !== undefined && !AUTH_MODES.includes(authMode))
    throw new RpcError(INVALID_PARAMS, `invalid authMode: ${String(authMode)}`);
  const upgraded = p.useUpgradedAuth;
  if (upgraded !== undefined && typeof upgraded !== 'boolean')
    throw new RpcError(INVALID_PARAMS, 'useUpgradedAuth must be a boolean');
  const target = invocationOf(ctx, env);
  if ('error' in target) return { latestLedger: ledger.tick().seq, error: target.error, events: [] };
  const { tx, op, body, call } = target;
  const opSource = op.sourceAccount;
  const sim = simulateInvoke(ctx.net, {
    source: muxedToAccount(codec, opSource ?? tx.sourceAccount),
    contractId: codec.fromScAddress(call.contractAddress),
    fn: call.functionName.toString(),
    args: call.args,
    authMode,
    authEntries: body.auth,
    upgradedAuth: upgraded,
  });
  if (!sim.ok) return { error: sim.error, events: diagnosticsB64(codec, sim.log), latestLedger: sim.latestLedger };
  if (sim.inv.auth.mode === 'record' && !opSource) {
    const key = invocationKey(codec, tx);
    if (key) ctx.simulations.set(key, { inv: sim.inv, retval: sim.retval, auth: sim.auth, version: sim.version });
  }
  // contract events only (the fn_call / fn_return trace would re-encode every argument)
  const events = sim.events.map((e) =>
    new xdr.DiagnosticEvent({ inSuccessfulContractCall: true, event: contractEventXdr(codec, e) }).toXdr('base64'),
  );
  return {
    transactionData: sim.transactionData.toXdr('base64'),
    minResourceFee: sim.minResourceFee.toString(),
    events,
    results: [{ auth: sim.auth.map((a) => a.toXdr('base64')), xdr: sim.retval.toXdr('base64') }],
    latestLedger: sim.latestLedger,
  };
}
