import { createConnection, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy on loopback in front of a real server, which a test can cut (every connection
 * dropped, new ones refused: the server is unreachable, as when it is down or the network
 * fails), stall (every connection dropped, new ones accepted and never answered: a connect
 * that hangs until the client's timeout) and restore on the same port.
 */
export class TcpProxy {
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  private stalled = false;
  private constructor(
    readonly port: number,
    private readonly target: { host: string; port: number },
  ) {}

  static async start(target: { host: string; port: number }): Promise<TcpProxy> {
    const probe = createServer();
    const port = await new Promise<number>((resolve) =>
      probe.listen(0, '127.0.0.1', () => resolve((probe.address() as { port: number }).port)),
    );
    await new Promise((resolve) => probe.close(resolve));
    const proxy = new TcpProxy(port, target);
    await proxy.restore();
    return proxy;
  }

  /** Forwards again (after cut or stall). */
  async restore(): Promise<void> {
    this.stalled = false;
    await this.listen();
  }

  private async listen(): Promise<void> {
    if (this.server) return;
    const server = createServer((client) => {
      if (this.stalled) {
        // Accepted and left unanswered (the client's bytes are read and dropped).
        this.sockets.add(client);
        client.on('close', () => this.sockets.delete(client));
        client.on('error', () => client.destroy());
        client.resume();
        return;
      }
      const upstream = createConnection(this.target);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => socket.destroy());
      }
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
      client.pipe(upstream);
      upstream.pipe(client);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.server = server;
  }

  /** Drops every connection and refuses new ones until restore. */
  async cut(): Promise<void> {
    const server = this.server;
    this.server = null;
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    if (server) await new Promise((resolve) => server.close(resolve));
  }

  /** Drops every connection; new ones are accepted and never answered until restore. */
  async stall(): Promise<void> {
    this.stalled = true;
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    await this.listen();
  }

  async close(): Promise<void> {
    await this.cut();
  }
}

/** The first host and port of a postgres:// URI (default port 5432). */
export function firstHostOf(url: string): { host: string; port: number } {
  const rest = url.slice(url.indexOf('://') + 3);
  const authority = rest.split(/[/?]/)[0]!;
  const first = authority.slice(authority.lastIndexOf('@') + 1).split(',')[0]!;
  const [host, port] = first.split(':');
  return { host: host || '127.0.0.1', port: Number(port || 5432) };
}
