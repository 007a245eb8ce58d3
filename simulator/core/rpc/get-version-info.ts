// getVersionInfo: what answers, and the protocol it runs.
import type { RpcContext } from './context.ts';

export function getVersionInfo({ ledger }: RpcContext): object {
  return {
    version: 'credential-vault-simulator 0.1.0',
    commitHash: '',
    buildTimestamp: '',
    captiveCoreVersion: 'simulated',
    protocolVersion: ledger.protocol,
  };
}
