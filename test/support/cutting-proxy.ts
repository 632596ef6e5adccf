// A loopback TCP proxy that can cut a connection half way through a message: the dropped
// connection of a real network, between a real client and a real server (the PostgreSQL
// store's contract cases). Armed for one direction and a marker, it forwards the first
// chunk holding the marker only up to half of it, then destroys both sides at once.
import { createServer, connect, type Server, type Socket } from 'node:net';

export type Direction = 'to-server' | 'to-client';

export interface CuttingProxy {
  host: string;
  port: number;
  /** Cuts the next connection whose `direction` traffic holds `marker` (once). */
  arm(direction: Direction, marker: string): void;
  /** How many connections were cut so far. */
  cuts(): number;
  close(): Promise<void>;
}

interface Armed {
  direction: Direction;
  marker: Buffer;
}

export async function startCuttingProxy(target: {
  host: string;
  port: number;
}): Promise<CuttingProxy> {
  let armed: Armed | undefined;
  let cuts = 0;
  const sockets = new Set<Socket>();

  /** Forwards `from` → `to`, cutting both when the armed marker passes this way. */
  const pipe = (from: Socket, to: Socket, direction: Direction, cutBoth: () => void) => {
    from.on('data', (chunk: Buffer) => {
      const at = armed?.direction === direction ? chunk.indexOf(armed.marker) : -1;
      if (at < 0) {
        to.write(chunk);
        return;
      }
      armed = undefined;
      cuts += 1;
      // Half the chunk, and at least a byte past the marker's start: a message begun, not ended.
      to.write(chunk.subarray(0, Math.max(at + 1, Math.floor(chunk.length / 2))), cutBoth);
    });
  };

  const server: Server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => undefined); // a cut is expected; both sides are destroyed
    }
    const cutBoth = () => {
      client.destroy();
      upstream.destroy();
    };
    pipe(client, upstream, 'to-server', cutBoth);
    pipe(upstream, client, 'to-client', cutBoth);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('proxy has no port');
  return {
    host: '127.0.0.1',
    port: address.port,
    arm: (direction, marker) => (armed = { direction, marker: Buffer.from(marker) }),
    cuts: () => cuts,
    close: () =>
      new Promise<void>((closed) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => closed());
      }),
  };
}
