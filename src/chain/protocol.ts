// The Stellar protocol line this service supports (docs/protocol.md, docs/chain-abi.md).
// The minimum is the oldest protocol whose RPC responses @stellar/stellar-sdk 17 decodes and the contracts run on:
// nothing here needs a host function newer than Protocol 26 (the contracts use require_auth only), and at 26
// simulation returns legacy ADDRESS entries, which every SDK signs. A network newer than the newest known one is
// served (its XDR may carry values this SDK cannot decode; those fail per request, with the SDK's words).

/** The oldest protocol an RPC may report for the service to start. */
export const MIN_PROTOCOL = 26;
/** The newest protocol this code and its SDK were built against: 28, the newest released, which the networks run. */
export const NEWEST_PROTOCOL = 28;

/** The one line the service refuses to start with when an RPC runs a protocol older than MIN_PROTOCOL. */
export function protocolRefusal(o: { network: string; rpcUrl: string; protocolVersion: number }): string | undefined {
  if (o.protocolVersion >= MIN_PROTOCOL) return undefined;
  return (
    `refusing to start: the ${o.network} RPC at ${o.rpcUrl} runs Protocol ${o.protocolVersion}, ` +
    `older than Protocol ${MIN_PROTOCOL}, the oldest this service supports (${MIN_PROTOCOL}..${NEWEST_PROTOCOL})`
  );
}
