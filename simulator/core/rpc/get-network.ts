// getNetwork: the passphrase, protocol and friendbot of the network.
import type { RpcContext } from './context.ts';

export function getNetwork({ net, ledger }: RpcContext): object {
  return {
    ...(net.info.friendbotUrl ? { friendbotUrl: net.info.friendbotUrl } : {}),
    passphrase: net.info.passphrase,
    protocolVersion: ledger.protocol,
  };
}
