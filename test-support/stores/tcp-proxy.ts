// A TCP proxy between a store and the real PostgreSQL or Redis that a test can cut and restore, to prove
// that a store fails fast while its backend is away and recovers by itself when it returns.
import net from 'node:net';

export type ProxyMode =
  /** Forward both ways. */
  | 'forward'
  /** Accept connections and say nothing (a network black hole). */
  | 'blackhole';

export interface TcpProxy {
  readonly port: number;
  /** Closes the listener and every open connection; new connections are refused. */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  start(): Promise<void>;
  setMode(mode: ProxyMode): void;
  /**
   * Stops (true) or resumes (false) forwarding on the open connections: their bytes wait in the buffers, as
   * on a network that went silent without closing anything.
   */
  freeze(frozen: boolean): void;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  /** Open client ↔ upstream pairs, for freeze(). */
  const pairs = new Set<[net.Socket, net.Socket]>();
  let mode: ProxyMode = 'forward';
  const server = net.createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => client.destroy());
    if (mode === 'blackhole') return;
    const upstream = net.connect(target);
    sockets.add(upstream);
    upstream.on('close', () => {
      sockets.delete(upstream);
      client.destroy();
    });
    upstream.on('error', () => upstream.destroy());
    client.on('close', () => upstream.destroy());
    const pair: [net.Socket, net.Socket] = [client, upstream];
    pairs.add(pair);
    client.on('close', () => pairs.delete(pair));
    client.pipe(upstream);
    upstream.pipe(client);
  });
  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  await listen(0);
  const port = (server.address() as net.AddressInfo).port;
  const stop = async () => {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const s of sockets) s.destroy();
    sockets.clear();
    await closed;
  };
  return {
    port,
    stop,
    start: () => listen(port),
    setMode: (m) => {
      mode = m;
    },
    freeze: (frozen) => {
      for (const [client, upstream] of pairs) {
        if (frozen) {
          client.unpipe(upstream);
          upstream.unpipe(client);
          client.pause();
          upstream.pause();
        } else {
          client.pipe(upstream);
          upstream.pipe(client);
        }
      }
    },
    close: async () => {
      if (server.listening) await stop();
    },
  };
}

/** A local port that nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
