// Why a server could not listen, for the person who starts it (src/services.ts, the simulator command).

/** What listens on a port, for the error a person reads when it cannot. */
export interface ListenTarget {
  service: string;
  host: string;
  port: number;
  /** The setting that moves it, as `ENV (--flag)`. */
  setting: string;
  /** The setting of the address (default `CV_HOST (--host)`). */
  hostSetting?: string;
}

/**
 * A failed listen in words a person can act on: the service, the address, and the setting to change (Node's own
 * `listen EADDRINUSE: address already in use 127.0.0.1:3001` names neither).
 */
export function listenFailure(err: unknown, t: ListenTarget): Error {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  const address = `${t.host.includes(':') ? `[${t.host}]` : t.host}:${t.port}`;
  const hostSetting = t.hostSetting ?? 'CV_HOST (--host)';
  switch (code) {
    case 'EADDRINUSE':
      return new Error(
        `${t.service} cannot listen on ${address}: another process uses that port; ` +
          `stop it, or set ${t.setting} to a free port (0 picks one)`,
      );
    case 'EACCES':
      return new Error(
        `${t.service} cannot listen on ${address}: not allowed to bind that port (ports below 1024 need privileges); ` +
          `set ${t.setting} to a port from 1024`,
      );
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
      return new Error(
        `${t.service} cannot listen on ${address}: no interface of this machine has the address ${t.host}; ` +
          `set ${hostSetting} to one of its addresses (127.0.0.1, 0.0.0.0)`,
      );
    // getaddrinfo's other failures: the name service did not answer (EAI_AGAIN) or failed (EAI_FAIL)
    case 'EAI_AGAIN':
    case 'EAI_FAIL':
    case 'EAI_NODATA':
    case 'EAI_NONAME':
      return new Error(
        `${t.service} cannot listen on ${address}: the host name ${t.host} could not be resolved (${code}); ` +
          `set ${hostSetting} to one of this machine's addresses (127.0.0.1, 0.0.0.0)`,
      );
    default: {
      const why = err instanceof Error ? err.message : String(err);
      return new Error(`${t.service} cannot listen on ${address}: ${why}`);
    }
  }
}
