// The Soroban JSON-RPC methods of one network, with the result shapes of stellar-rpc (close times as strings,
// XDR as base64), plus the developer cheats under `sim_`. Errors are RpcError (code + message).
import { xdr } from '@stellar/stellar-sdk';
import { contractEventXdr, type Preexecuted } from './apply.ts';
import { hashFromEnvelopeXdr } from './check.ts';
import { credentialsInvalidAt, type AuthMode } from './auth.ts';
import { muxedToAccount } from './classic.ts';
import { contractHash } from './crypto.ts';
import { diagnosticXdr } from './diagnostics.ts';
import { entryXdr, fromScAddress, keyIdOfLedgerKey, liveUntilOf, type Entry } from './entries.ts';
import { getEvents, type GetEventsParams } from './events.ts';
import { getLedgers } from './ledgers.ts';
import { ledgerXdr, type LedgerXdrMemo } from './ledger-xdr.ts';
import { txXdrFields } from './meta.ts';
import type { RpcNetwork } from './network-types.ts';
import type { DiagnosticRec, TxRecord } from './records.ts';
import { INVALID_PARAMS, METHOD_NOT_FOUND, RpcError } from './rpc-error.ts';
import { simulateInvoke } from './simulate.ts';

type Params = Record<string, unknown>;
type Method = (p: Params) => unknown;

const RETENTION_WINDOW = 17_280;
const SIM_CACHE_SIZE = 32;

/** Key of an invocation for the simulation cache: its source and host function. */
function invocationKey(tx: xdr.Transaction): string | undefined {
  const ops = tx.operations;
  const body = ops[0]?.body;
  if (ops.length !== 1 || ops[0]!.sourceAccount || body?.type !== 'invokeHostFunction') return undefined;
  return `${muxedToAccount(tx.sourceAccount)}|${body.invokeHostFunctionOp.hostFunction.toXdr('base64')}`;
}

function obj(params: unknown): Params {
  if (params === undefined || params === null) return {};
  if (typeof params !== 'object' || Array.isArray(params))
    throw new RpcError(INVALID_PARAMS, 'params must be an object');
  return params as Params;
}

function str(p: Params, name: string): string {
  const v = p[name];
  if (typeof v !== 'string' || v === '') throw new RpcError(INVALID_PARAMS, `missing or invalid parameter: ${name}`);
  return v;
}

function envelopeOf(b64: string | Buffer): xdr.TransactionEnvelope {
  try {
    return typeof b64 === 'string'
      ? xdr.TransactionEnvelope.fromXdr(b64, 'base64')
      : xdr.TransactionEnvelope.fromXdr(b64);
  } catch (e) {
    // @stellar/stellar-sdk 17 compiles the XDR without CAP-84 (SC_ADDRESS_TYPE_MUXED_CONTRACT = 5), so neither the
    // simulator nor the service can decode a muxed contract address: named, so a client knows what was refused.
    if (
      /(ScAddress|address|contract|contractAddress)\.type: unknown enum value 5$/i.test(String((e as Error).message))
    ) {
      throw new RpcError(
        INVALID_PARAMS,
        'invalid_xdr: SC_ADDRESS_TYPE_MUXED_CONTRACT (CAP-84) addresses are not supported by the simulator',
      );
    }
    throw new RpcError(INVALID_PARAMS, 'invalid_xdr');
  }
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

const diagB64 = (log: readonly DiagnosticRec[]): string[] =>
  log.map((d) => diagnosticXdr(d, contractHash).toXdr('base64'));

/** The base64 XDR of getTransaction for a record, memoized on it (records never change). */
function getTransactionXdr(
  rec: TxRecord,
): ReturnType<typeof txXdrFields> & { events: readonly string[]; diagnostics: readonly string[] } {
  const x = txXdrFields(rec);
  const c = rec.cache;
  c.diagnostics ??= diagB64(rec.diagnostics);
  c.events ??= rec.events.map((e) => contractEventXdr(e).toXdr('base64'));
  return { ...x, events: c.events, diagnostics: c.diagnostics };
}

export function createRpcHandler(net: RpcNetwork): (method: string, params?: unknown) => Promise<unknown> {
  const ledger = net.ledger;
  // Recent recording-mode simulations: a transaction submitted for exactly that invocation, with exactly the
  // recorded auth entries and a covering footprint, on an unchanged ledger, is applied without running again.
  const simCache = new Map<string, Preexecuted>();
  const xdrMemo: LedgerXdrMemo = new WeakMap();
  const latest = () => {
    const l = ledger.tick();
    return { latestLedger: l.seq, latestLedgerCloseTime: String(l.closeTime) };
  };

  const methods: Record<string, Method> = {
    getHealth: () => ({
      status: 'healthy',
      latestLedger: ledger.tick().seq,
      oldestLedger: ledger.oldestLedger,
      ledgerRetentionWindow: RETENTION_WINDOW,
    }),
    getNetwork: () => ({
      ...(net.info.friendbotUrl ? { friendbotUrl: net.info.friendbotUrl } : {}),
      passphrase: net.info.passphrase,
      protocolVersion: ledger.protocol,
    }),
    getVersionInfo: () => ({
      version: 'credential-vault-simulator 0.1.0',
      commitHash: '',
      buildTimestamp: '',
      captiveCoreVersion: 'simulated',
      protocolVersion: ledger.protocol,
    }),
    getFeeStats: () => {
      const d = {
        max: '100',
        min: '100',
        mode: '100',
        p10: '100',
        p20: '100',
        p30: '100',
        p40: '100',
        p50: '100',
        p60: '100',
        p70: '100',
        p80: '100',
        p90: '100',
        p95: '100',
        p99: '100',
        transactionCount: '0',
        ledgerCount: 1,
      };
      return { sorobanInclusionFee: d, inclusionFee: d, latestLedger: ledger.tick().seq };
    },
    getLatestLedger: () => {
      const l = ledger.tick();
      const x = ledgerXdr(ledger, l, xdrMemo);
      return {
        id: l.hash.toString('hex'),
        sequence: l.seq,
        protocolVersion: ledger.protocol,
        closeTime: String(l.closeTime),
        headerXdr: x.header,
        metadataXdr: x.meta,
      };
    },
    getLedgers: (p) => getLedgers(ledger, p, xdrMemo),
    getLedgerEntries: (p) => {
      const keys = p.keys;
      if (!Array.isArray(keys) || keys.length === 0)
        throw new RpcError(INVALID_PARAMS, 'keys must be a non-empty array');
      if (keys.length > 200) throw new RpcError(INVALID_PARAMS, 'key count (201) exceeds maximum supported (200)');
      const seq = ledger.tick().seq;
      const entries: object[] = [];
      for (const k of keys) {
        let key: xdr.LedgerKey;
        try {
          key = xdr.LedgerKey.fromXdr(String(k), 'base64');
        } catch {
          throw new RpcError(INVALID_PARAMS, `cannot unmarshal key value ${String(k)}`);
        }
        const id = keyIdOfLedgerKey(key);
        const e: Entry | undefined = id === undefined ? undefined : ledger.get(id);
        if (!e || (e.t === 'data' && e.durability === 'temporary' && e.liveUntil < seq)) continue;
        const live = liveUntilOf(e);
        entries.push({
          key: String(k),
          xdr: entryXdr(e).data.toXdr('base64'),
          lastModifiedLedgerSeq: e.lm,
          ...(live !== undefined ? { liveUntilLedgerSeq: live } : {}),
        });
      }
      return { entries, latestLedger: seq };
    },
    simulateTransaction: (p) => {
      const env = envelopeOf(str(p, 'transaction'));
      const authMode = p.authMode as AuthMode | undefined;
      if (authMode !== undefined && !['enforce', 'record', 'record_allow_nonroot'].includes(authMode)) {
        throw new RpcError(INVALID_PARAMS, `invalid authMode: ${String(authMode)}`);
      }
      const upgraded = p.useUpgradedAuth;
      if (upgraded !== undefined && typeof upgraded !== 'boolean')
        throw new RpcError(INVALID_PARAMS, 'useUpgradedAuth must be a boolean');
      const base = { latestLedger: ledger.tick().seq };
      if (env.type !== 'envelopeTypeTx')
        return { ...base, error: 'only v1 transaction envelopes can be simulated', events: [] };
      const tx = env.v1.tx;
      const ops = tx.operations;
      const body = ops[0]?.body;
      if (ops.length !== 1 || body?.type !== 'invokeHostFunction') {
        return {
          ...base,
          error: 'Transaction contains unsupported operation type (the simulator simulates one InvokeHostFunction)',
          events: [],
        };
      }
      const op = body.invokeHostFunctionOp;
      const hf = op.hostFunction;
      const unsupported = unsupportedHostFunction(hf);
      if (unsupported !== undefined || hf.type !== 'hostFunctionTypeInvokeContract') {
        return {
          ...base,
          error: unsupported ?? 'only InvokeContract host functions are supported by the simulator',
          events: [],
        };
      }
      const invalid = credentialsInvalidAt(op.auth, ledger.protocol);
      if (invalid) return { ...base, error: `transaction is invalid: ${invalid}`, events: [] };
      const call = hf.invokeContract;
      const opSource = ops[0]!.sourceAccount;
      const source = muxedToAccount(opSource ?? tx.sourceAccount);
      const sim = simulateInvoke(net, {
        source,
        contractId: fromScAddress(call.contractAddress),
        fn: call.functionName.toString(),
        args: call.args,
        authMode,
        authEntries: op.auth,
        upgradedAuth: upgraded,
      });
      if (!sim.ok) return { error: sim.error, events: diagB64(sim.log), latestLedger: sim.latestLedger };
      if (sim.inv.auth.mode === 'record' && !opSource) {
        const key = invocationKey(tx);
        if (key) {
          if (simCache.size >= SIM_CACHE_SIZE) simCache.delete(simCache.keys().next().value!);
          simCache.set(key, { inv: sim.inv, retval: sim.retval, auth: sim.auth, version: sim.version });
        }
      }
      // contract events only (the fn_call / fn_return trace would re-encode every argument)
      const events = sim.events.map((e) =>
        new xdr.DiagnosticEvent({ inSuccessfulContractCall: true, event: contractEventXdr(e) }).toXdr('base64'),
      );
      return {
        transactionData: sim.transactionData.toXdr('base64'),
        minResourceFee: sim.minResourceFee.toString(),
        events,
        results: [{ auth: sim.auth.map((a) => a.toXdr('base64')), xdr: sim.retval.toXdr('base64') }],
        latestLedger: sim.latestLedger,
      };
    },
    sendTransaction: (p) => {
      const b64 = str(p, 'transaction');
      const raw = Buffer.from(b64, 'base64'); // what fromXdr(b64, 'base64') decodes
      const env = envelopeOf(raw);
      hashFromEnvelopeXdr(env, raw, ledger.networkId);
      let pre: Preexecuted | undefined;
      if (simCache.size > 0 && env.type === 'envelopeTypeTx') {
        const key = invocationKey(env.v1.tx);
        pre = key === undefined ? undefined : simCache.get(key);
        if (key !== undefined) simCache.delete(key);
        if (pre && pre.version !== ledger.version) pre = undefined;
      }
      const out = net.send(env, { ...(pre ? { pre } : {}), b64 });
      if (out.status === 'PENDING' && out.record) {
        // What getTransaction answers for it, built once the reply is on its way (clients poll for it next). A
        // failure here is left to getTransaction, which builds it again and answers the error as before.
        const rec = out.record;
        setImmediate(() => {
          try {
            getTransactionXdr(rec);
          } catch {
            // see above
          }
        });
      }
      const l = latest();
      if (out.status === 'ERROR')
        return { status: 'ERROR', hash: out.hash, errorResultXdr: out.result.toXdr('base64'), ...l };
      return { status: out.status, hash: out.hash, ...l };
    },
    getTransaction: (p) => {
      const hash = str(p, 'hash');
      if (!/^[0-9a-fA-F]{64}$/.test(hash)) throw new RpcError(INVALID_PARAMS, 'unexpected hash length');
      const l = ledger.tick();
      const base = {
        latestLedger: l.seq,
        latestLedgerCloseTime: String(l.closeTime),
        oldestLedger: ledger.oldestLedger,
        oldestLedgerCloseTime: String(ledger.oldestCloseTime),
      };
      const rec = ledger.txs.get(hash.toLowerCase());
      if (!rec) return { status: 'NOT_FOUND', txHash: hash, ...base };
      const x = getTransactionXdr(rec);
      return {
        status: rec.status,
        txHash: rec.hash,
        ...base,
        applicationOrder: rec.applicationOrder,
        feeBump: false,
        envelopeXdr: x.envelopeXdr,
        resultXdr: x.resultXdr,
        resultMetaXdr: x.resultMetaXdr,
        ...(x.diagnostics.length ? { diagnosticEventsXdr: x.diagnostics.slice() } : {}),
        events: {
          transactionEventsXdr: [],
          contractEventsXdr: Array.from({ length: rec.opCount }, (_, i) => (i === 0 ? x.events.slice() : [])),
        },
        ledger: rec.ledger,
        createdAt: String(rec.createdAt),
      };
    },
    getEvents: (p) => getEvents(ledger, p as GetEventsParams),

    // ---- cheats ---------------------------------------------------------------------------------------------
    sim_fund: (p) => {
      const address = str(p, 'address');
      const asset = (p.asset ?? 'native') as string;
      if (asset !== 'native' && asset !== 'USDC')
        throw new RpcError(INVALID_PARAMS, "asset must be 'native' or 'USDC'");
      let amount: bigint | undefined;
      if (p.amount !== undefined) {
        try {
          amount = BigInt(p.amount as string | number);
        } catch {
          throw new RpcError(INVALID_PARAMS, 'amount must be an integer number of stroops');
        }
      }
      try {
        const balance = net.fund(address, amount, asset);
        return { address, asset, balance: balance.toString() };
      } catch (e) {
        throw new RpcError(INVALID_PARAMS, (e as Error).message);
      }
    },
    sim_setTime: (p) => {
      const t = p.unixSeconds;
      if (typeof t !== 'number' || !Number.isInteger(t) || t < 0)
        throw new RpcError(INVALID_PARAMS, 'unixSeconds must be a non-negative integer');
      try {
        return net.setTime(t);
      } catch (e) {
        throw new RpcError(INVALID_PARAMS, (e as Error).message);
      }
    },
    sim_closeLedger: () => net.closeLedger(),
    sim_snapshot: () => net.snapshot(),
    sim_revert: (p) => {
      const id = String(p.id ?? '');
      if (!net.revert(id)) throw new RpcError(INVALID_PARAMS, `unknown snapshot id ${JSON.stringify(id)}`);
      return true;
    },
    sim_info: () => ({
      ...net.info,
      friendbot: net.genesis.friendbot.publicKey(),
      ...(net.genesis.stablecoin
        ? { stablecoinIssuerSecret: net.genesis.issuer.secret(), stablecoinTokenId: net.genesis.stablecoin.tokenId }
        : {}),
      latestLedger: ledger.tick().seq,
      ledgerCloseMs: ledger.ledgerCloseMs,
    }),
  };

  return async (method, params) => {
    const fn = Object.hasOwn(methods, method) ? methods[method] : undefined;
    if (!fn) throw new RpcError(METHOD_NOT_FOUND, 'method not found');
    return fn(obj(params));
  };
}
