/**
 * A TCP relay between one instance and PostgreSQL that the test can cut: while cut, every open connection is
 * reset and new ones are dropped at once, as when a firewall or a switch cuts the instance off the database (a
 * network that swallows packets silently is tested on the elector alone, test/ha). Runs in the test process, in
 * front of a daemon that is a child process.
 */
import net from 'node:net';

export class DatabaseRelay {
  readonly #server: net.Server;
  readonly #sockets = new Set<net.Socket>();
  #cut = false;

  private constructor(server: net.Server) {
    this.#server = server;
  }

  static async start(targetUrl: string): Promise<DatabaseRelay> {
    const target = new URL(targetUrl);
    const server = net.createServer();
    const relay = new DatabaseRelay(server);
    server.on('connection', (client) => relay.#relay(client, target.hostname, Number(target.port || '5432')));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return relay;
  }

  /** `url` through this relay. */
  urlFor(url: string): string {
    const parsed = new URL(url);
    parsed.hostname = '127.0.0.1';
    parsed.port = String((this.#server.address() as net.AddressInfo).port);
    return parsed.toString();
  }

  cut(): void {
    this.#cut = true;
    for (const socket of this.#sockets) socket.resetAndDestroy();
  }

  restore(): void {
    this.#cut = false;
  }

  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #relay(client: net.Socket, host: string, port: number): void {
    if (this.#cut) {
      client.resetAndDestroy();
      return;
    }
    const upstream = net.connect(port, host);
    for (const socket of [client, upstream]) {
      this.#sockets.add(socket);
      socket.on('close', () => {
        this.#sockets.delete(socket);
        (socket === client ? upstream : client).destroy();
      });
      socket.on('error', () => socket.destroy());
    }
    client.pipe(upstream);
    upstream.pipe(client);
  }
}
