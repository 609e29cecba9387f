import net from 'node:net';

/**
 * A TCP relay to a real server that a test can cut: while cut, open connections are reset and
 * new ones refused, as when the server's host goes away. For outages of a dependency that other
 * suites share (MariaDB) without stopping it for them.
 */
export class TcpProxy {
  private readonly server: net.Server;
  private readonly sockets = new Set<net.Socket>();
  private cutOff = false;

  private constructor(targetPort: number) {
    this.server = net.createServer((client) => {
      if (this.cutOff) {
        client.resetAndDestroy();
        return;
      }
      const upstream = net.connect(targetPort, '127.0.0.1');
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
  }

  static async start(targetPort: number): Promise<{ proxy: TcpProxy; port: number }> {
    const proxy = new TcpProxy(targetPort);
    await new Promise<void>((resolve) => proxy.server.listen(0, '127.0.0.1', resolve));
    return { proxy, port: (proxy.server.address() as net.AddressInfo).port };
  }

  cut(): void {
    this.cutOff = true;
    for (const socket of this.sockets) socket.resetAndDestroy();
  }

  restore(): void {
    this.cutOff = false;
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
