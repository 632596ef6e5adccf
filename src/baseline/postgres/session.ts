// One attempt's connection: every query bounded by what is left of the caller's deadline,
// in the driver (a server that stops answering) and, in a transaction, on the server
// (statement_timeout).

import type pg from 'pg';

export class Session {
  constructor(
    private readonly client: pg.PoolClient,
    private readonly endsAt: number,
  ) {}

  /**
   * Opens a transaction whose statements the server ends at the deadline. SET LOCAL, not
   * a session setting: behind a transaction pooler (PgBouncer, RDS Proxy) the server
   * connection goes to another client after COMMIT, and must not keep our timeout.
   */
  async begin(): Promise<void> {
    await this.query('BEGIN');
    await this.query('SELECT set_config($1, $2, true)', [
      'statement_timeout',
      String(this.remainingMs()),
    ]);
  }

  remainingMs(): number {
    return Math.max(1, Math.floor(this.endsAt - performance.now()));
  }

  query<R extends pg.QueryResultRow = pg.QueryResultRow>(
    text: string,
    values?: unknown[],
  ): Promise<pg.QueryResult<R>> {
    return this.client.query<R>({
      text,
      ...(values ? { values } : {}),
      // A little past the server's own limit, so its answer wins when it gives one; the
      // driver's limit is for a server that stopped answering.
      query_timeout: this.remainingMs() + 1000,
    } as pg.QueryConfig);
  }
}

export class ConnectTimeoutError extends Error {
  override readonly name = 'ConnectTimeoutError';
}

/** Clients given a listener for connection errors while checked out. */
const listening = new WeakSet<pg.PoolClient>();

/**
 * A pooled client within `ms`; one that arrives later goes back to the pool, closed. The
 * pool listens for errors only on idle clients: a checked-out one whose server ends the
 * connection between queries would throw an uncaught 'error' and end the gate. Here the
 * error is left to the query that meets it (the client is then not queryable: retried).
 */
export async function connectWithin(pool: pg.Pool, ms: number): Promise<pg.PoolClient> {
  const client = await raceConnect(pool, ms);
  if (!listening.has(client)) {
    client.on('error', () => undefined);
    listening.add(client);
  }
  return client;
}

async function raceConnect(pool: pg.Pool, ms: number): Promise<pg.PoolClient> {
  const pending = pool.connect();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new ConnectTimeoutError(`no connection within ${Math.round(ms)} ms`)),
      ms,
    );
  });
  try {
    return await Promise.race([pending, late]);
  } catch (error) {
    pending.then(
      (client) => client.release(true),
      () => undefined,
    );
    throw error;
  } finally {
    clearTimeout(timer);
  }
}
