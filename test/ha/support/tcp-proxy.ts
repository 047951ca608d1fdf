/**
 * A TCP relay in front of PostgreSQL that a test can cut: once cut, bytes are swallowed in both directions and the
 * sockets stay open, as on a network partition where no reset ever arrives (the hardest case for a client).
 */
import net from 'node:net';

export class CuttableProxy {
  readonly #server: net.Server;
  readonly #sockets = new Set<net.Socket>();
  #cut = false;

  private constructor(server: net.Server) {
    this.#server = server;
  }

  static async start(targetHost: string, targetPort: number): Promise<CuttableProxy> {
    const server = net.createServer();
    const proxy = new CuttableProxy(server);
    server.on('connection', (client) => proxy.#relay(client, targetHost, targetPort));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  get port(): number {
    return (this.#server.address() as net.AddressInfo).port;
  }

  /** `url` with its host and port replaced by this relay's. */
  urlFor(url: string): string {
    const parsed = new URL(url);
    parsed.hostname = '127.0.0.1';
    parsed.port = String(this.port);
    return parsed.toString();
  }

  cut(): void {
    this.#cut = true;
  }

  restore(): void {
    this.#cut = false;
  }

  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #relay(client: net.Socket, host: string, port: number): void {
    const upstream = net.connect(port, host);
    for (const socket of [client, upstream]) {
      this.#sockets.add(socket);
      socket.on('close', () => this.#sockets.delete(socket));
      socket.on('error', () => socket.destroy());
    }
    client.on('data', (chunk) => {
      if (!this.#cut) upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      if (!this.#cut) client.write(chunk);
    });
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  }
}
