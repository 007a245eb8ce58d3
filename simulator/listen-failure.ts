// Why `credential-vault simulator` could not listen, in words that name the address and the flag to change
// (Node's own `listen EADDRINUSE: address already in use 127.0.0.1:8000` names neither).

const REMEDY: Readonly<Record<string, string>> = {
  EADDRINUSE: 'another process uses that port; stop it, or set --port to a free port (0 picks one)',
  EACCES: 'not allowed to bind that port (ports below 1024 need privileges); set --port to a port from 1024',
};
/** Codes of an address this machine does not have, or a host name that does not resolve. */
const NO_SUCH_HOST = new Set(['EADDRNOTAVAIL', 'ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NODATA', 'EAI_NONAME']);

/** The one line the simulator command prints when its server cannot listen on host:port. */
export function simulatorListenFailure(err: unknown, host: string, port: number): string {
  const where = `the chain simulator cannot listen on ${host.includes(':') ? `[${host}]` : host}:${port}`;
  const code = (err as NodeJS.ErrnoException | undefined)?.code ?? '';
  const remedy =
    REMEDY[code] ??
    (NO_SUCH_HOST.has(code)
      ? `no address ${host} here (${code}); set --host to one of this machine's addresses (127.0.0.1, 0.0.0.0)`
      : err instanceof Error
        ? err.message
        : String(err));
  return `${where}: ${remedy}`;
}
