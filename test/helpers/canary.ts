import diagnostics from 'node:diagnostics_channel';
import net from 'node:net';

/**
 * Evidence that a connection was never made, from two independent sides:
 *
 * - a canary: TCP listeners on loopback (127.0.0.1, and ::1 when the machine has IPv6) that
 *   count every connection they accept, one port per case, so a hit names its case;
 * - a witness: every TCP connection attempt this process starts (Node's `net.client.socket`
 *   diagnostics channel and the socket's `connectionAttempt` event), wherever it goes. It sees
 *   what no listener could: an attempt to 10.0.0.1 or 169.254.169.254, which on a machine
 *   without those networks would simply time out. The service under test runs in this process
 *   (test/helpers/service.ts), so its fetcher's sockets are among those seen.
 */

export interface Canary {
  /** One port per case, listened on at every address in `addresses`. */
  readonly ports: readonly number[];
  readonly addresses: readonly string[];
  /** Connections accepted on a port, on any of the addresses, since the start. */
  hits(port: number): number;
  close(): Promise<void>;
}

/** Listens on `count` ports of 127.0.0.1 and, when it can, ::1 (the same port number on both), plus `extraAddresses`. */
export async function startCanary(count: number, extraAddresses: readonly string[] = []): Promise<Canary> {
  const servers: net.Server[] = [];
  const hits = new Map<number, number>();
  const ipv6 = await canListen('::1');
  const addresses = ['127.0.0.1', ...(ipv6 ? ['::1'] : []), ...extraAddresses];
  const listen = (port: number, host: string) => new Promise<net.Server>((resolve, reject) => {
    const server = net.createServer((socket) => {
      hits.set(port, (hits.get(port) ?? 0) + 1);
      socket.destroy();
    });
    server.once('error', reject);
    server.listen(port, host, () => resolve(server));
  });
  const ports: number[] = [];
  const taken = new Set<number>();
  while (ports.length < count) {
    const port = portOfNoEarlierServer(taken);
    taken.add(port);
    const group: net.Server[] = [];
    try {
      for (const host of addresses) group.push(await listen(port, host));
    } catch {
      // Someone else holds this port on one of the addresses: try another.
      await Promise.all(group.map(closeServer));
      continue;
    }
    servers.push(...group);
    ports.push(port);
  }
  return {
    ports,
    addresses,
    hits: (port) => hits.get(port) ?? 0,
    close: async () => {
      await Promise.all(servers.map(closeServer));
    },
  };
}

export interface ConnectionAttempt {
  readonly address: string;
  readonly port: number;
}

export interface ConnectionWitness {
  /** Every attempt seen since the start, in order. */
  readonly attempts: readonly ConnectionAttempt[];
  /** Attempts to any of these ports, on any address. */
  to(ports: Iterable<number>): ConnectionAttempt[];
  stop(): void;
}

export function watchConnections(): ConnectionWitness {
  const attempts: ConnectionAttempt[] = [];
  const onSocket = (message: unknown) => {
    const { socket } = message as { socket: net.Socket };
    socket.on('connectionAttempt', (address: string, port: number) => attempts.push({ address, port }));
  };
  diagnostics.subscribe('net.client.socket', onSocket);
  return {
    attempts,
    to: (ports) => {
      const wanted = new Set(ports);
      return attempts.filter((attempt) => wanted.has(attempt.port));
    },
    stop: () => diagnostics.unsubscribe('net.client.socket', onSocket),
  };
}

/**
 * A port below Linux's ephemeral range (32768–60999), from which `listen(0)` never picks: no
 * server an earlier test started on an ephemeral port can have held it, so a client that earlier
 * test left reconnecting to its old port (a leak the canary must not blame on this test's case)
 * never reaches the canary.
 */
function portOfNoEarlierServer(taken: ReadonlySet<number>): number {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (!taken.has(port)) return port;
  }
}

async function canListen(host: string): Promise<boolean> {
  const server = net.createServer();
  const ok = await new Promise<boolean>((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(0, host, () => resolve(true));
  });
  if (ok) await closeServer(server);
  return ok;
}

function closeServer(server: net.Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}
