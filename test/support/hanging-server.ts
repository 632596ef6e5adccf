// A server on loopback that accepts every connection and never answers: what a stuck
// GitHub (or proxy) looks like to a client that has no deadline of its own.
import { createServer, type Socket } from 'node:net';

export interface HangingServer {
  /** http://127.0.0.1:<port> */
  url: string;
  /** Requests received so far (their heads: the server reads them, then says nothing). */
  requests: number;
  close(): Promise<void>;
}

export async function startHangingServer(): Promise<HangingServer> {
  const sockets = new Set<Socket>();
  const state = { requests: 0 };
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    let received = '';
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
      let end: number;
      while ((end = received.indexOf('\r\n\r\n')) >= 0) {
        state.requests += 1;
        received = received.slice(end + 4);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return {
    url: `http://127.0.0.1:${address.port}`,
    get requests() {
      return state.requests;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
