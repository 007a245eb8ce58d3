// State archival from the service's side (docs/chain-abi.md "State archival"): the network's TTL settings, an
// ExtendFootprintTTL over a set of ledger keys prepared (or, when some are archived, the RestoreFootprint that must
// land first), and such a signed transaction decoded for the safe-submit checks and sent.
import {
  Account,
  FeeBumpTransaction,
  Operation,
  SorobanDataBuilder,
  type Transaction,
  TransactionBuilder,
  rpc,
  xdr,
} from '@stellar/stellar-sdk';
import { PREPARED_TX_VALIDITY_S } from './errors.ts';
import { inspectSigners, mismatch, parseEnvelope } from './inspect.ts';
import { loadSequence, simulate } from './prepare.ts';
import type { ChainContext } from './rpc.ts';
import { requireSigned, sendFresh } from './submit.ts';
import type {
  PreparedTtl,
  SubmitResult,
  TtlInvocation,
  TtlOperation,
  TtlPrepareRequest,
  TtlSettings,
} from './types.ts';

/** Protocol 28's settings on testnet and mainnet, for a network whose RPC does not answer its own. */
export const PROTOCOL_28_TTL: TtlSettings = {
  minPersistentTTL: 2_073_600,
  minTemporaryTTL: 17_280,
  maxEntryTTL: 3_110_400,
};

/** The LedgerKey of the network's state archival settings (CONFIG_SETTING_STATE_ARCHIVAL). */
export const STATE_ARCHIVAL_KEY = xdr.LedgerKey.configSetting(
  new xdr.LedgerKeyConfigSetting({ configSettingId: xdr.ConfigSettingId.configSettingStateArchival }),
);

/** The TTL settings of a getLedgerEntries answer that holds STATE_ARCHIVAL_KEY's entry; undefined without it. */
export function ttlSettingsOf(entries: readonly rpc.Api.LedgerEntryResult[]): TtlSettings | undefined {
  for (const e of entries) {
    if (e.val.type !== 'configSetting' || e.val.configSetting.type !== 'configSettingStateArchival') continue;
    const s = e.val.configSetting.stateArchivalSettings;
    return { minPersistentTTL: s.minPersistentTtl, minTemporaryTTL: s.minTemporaryTtl, maxEntryTTL: s.maxEntryTtl };
  }
  return undefined;
}

/**
 * Builds and simulates an ExtendFootprintTTL of `keys` to `extendTo` ledgers past the one it lands in. When the
 * simulation says some of them are archived (its restorePreamble, as stellar-rpc answers an extension over archived
 * state), the answer is that RestoreFootprint instead: an extension skips archived entries, so they are restored
 * first, and the extension is prepared again after it.
 */
export async function prepareTtl(ctx: ChainContext, req: TtlPrepareRequest): Promise<PreparedTtl> {
  const sequence = await (req.sequence ?? loadSequence(ctx, req.source));
  const maxTime = Math.floor(ctx.now() / 1000) + (ctx.opts.txValiditySeconds ?? PREPARED_TX_VALIDITY_S);
  const build = (op: xdr.Operation, data: xdr.SorobanTransactionData, fee: string): Transaction =>
    new TransactionBuilder(new Account(req.source, sequence), { fee, networkPassphrase: ctx.passphrase })
      .addOperation(op)
      .setSorobanData(data)
      .setTimebounds(0, maxTime)
      .build();
  const extend = build(
    Operation.extendFootprintTtl({ extendTo: req.extendTo }),
    new SorobanDataBuilder().setReadOnly(req.keys).build(),
    ctx.baseFee,
  );
  const sim = await simulate(ctx, extend, 'vault');
  const answer = (tx: Transaction, operation: TtlOperation, restoring: xdr.LedgerKey[]): PreparedTtl => ({
    xdr: tx.toXdr(),
    network: ctx.passphrase,
    operation,
    restoring: restoring.map((k) => k.toXdr('base64')),
    fee: tx.fee,
    latestLedger: sim.latestLedger,
  });
  if (rpc.Api.isSimulationRestore(sim)) {
    const data = sim.restorePreamble.transactionData.build();
    const fee = (BigInt(ctx.baseFee) + BigInt(sim.restorePreamble.minResourceFee)).toString();
    return answer(
      build(Operation.restoreFootprint({}), data, fee),
      'restoreFootprint',
      data.resources.footprint.readWrite,
    );
  }
  return answer(rpc.assembleTransaction(extend, sim).build(), 'extendFootprintTtl', []);
}

const TTL_OPS: ReadonlySet<string> = new Set<TtlOperation>(['extendFootprintTtl', 'restoreFootprint']);

/**
 * What a signed TTL transaction does: exactly one ExtendFootprintTTL or RestoreFootprint operation (else
 * tx_operation_mismatch), its footprint, and which of its accounts signed it under this network's passphrase.
 */
export function inspectTtl(ctx: ChainContext, parsed: Transaction | FeeBumpTransaction): TtlInvocation {
  const outer = parsed instanceof FeeBumpTransaction ? parsed : undefined;
  const tx = outer ? outer.innerTransaction : (parsed as Transaction);
  if (tx.operations.length !== 1) throw mismatch(`expected one operation, found ${tx.operations.length}`);
  const op = tx.operations[0]!;
  if (!TTL_OPS.has(op.type)) throw mismatch(`expected ExtendFootprintTTL or RestoreFootprint, found ${op.type}`);
  const inner = tx.tx;
  const ext = 'ext' in inner ? inner.ext : undefined;
  if (ext?.type !== 'sorobanData') throw mismatch(`the ${op.type} transaction carries no footprint`);
  const fp = ext.sorobanData.resources.footprint;
  const signed = inspectSigners(parsed, ctx.caches.signers);
  return {
    ...signed,
    operation: op.type as TtlOperation,
    ...(op.type === 'extendFootprintTtl' ? { extendTo: op.extendTo } : {}),
    readOnly: fp.readOnly,
    readWrite: fp.readWrite,
  };
}

/** Checks a signed TTL transaction (signed, a signature verifies, `expect` agrees), then sends it and waits. */
export async function submitTtl(
  ctx: ChainContext,
  signedXdr: string,
  expect: (inv: TtlInvocation) => void | Promise<void>,
): Promise<SubmitResult> {
  const parsed = parseEnvelope(signedXdr, ctx.passphrase);
  const inv = inspectTtl(ctx, parsed);
  requireSigned(ctx, parsed, inv);
  await expect(inv);
  return sendFresh(ctx, parsed, inv, 'vault');
}
