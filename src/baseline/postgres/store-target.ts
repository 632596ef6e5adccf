// Which PostgreSQL a store talks to, for messages: host, port, database and user as the
// driver reads them from the connection string (and the PG* variables it falls back on),
// never the password.

import pg from 'pg';

export interface StoreTarget {
  /** "PostgreSQL database 'gates' on db.example:5432 as perf_gate". */
  description: string;
  /** Replaces the password wherever a driver message repeats it. */
  redact(text: string): string;
}

/** Throws, without repeating the string, when it is not a postgres:// URL. */
export function storeTarget(connectionString: string): StoreTarget {
  const password = urlPassword(connectionString);
  // A client that never connects: how pg itself reads the URL.
  const parsed = new pg.Client({ connectionString });
  const host = parsed.host.startsWith('/') ? `socket ${parsed.host}` : parsed.host;
  const user = parsed.user ? ` as ${parsed.user}` : '';
  return {
    description: `PostgreSQL database '${parsed.database ?? ''}' on ${host}:${parsed.port}${user}`,
    redact: (text) => (password ? text.replaceAll(password, '***') : text),
  };
}

/**
 * The URL's password. Only the URL form is accepted: pg reads a keyword=value string
 * (`host=… password=…`) as a database name, password and all.
 */
function urlPassword(connectionString: string): string | undefined {
  let url: URL;
  try {
    url = new URL(connectionString);
  } catch {
    url = new URL('invalid:');
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new Error(
      'the PostgreSQL connection string is not a postgres:// URL; write it as postgres://user:password@host:5432/database (the string itself is not shown: it may hold a password)',
    );
  }
  const problem = !url.hostname
    ? 'names no host'
    : !decodes(url.username) || !decodes(url.password)
      ? 'has a user or password that is not valid percent-encoding (write % as %25, and @ : / ? # as %40 %3A %2F %3F %23)'
      : undefined;
  if (problem) {
    throw new Error(
      `the PostgreSQL connection string ${problem}; write it as postgres://user:password@host:5432/database (the string itself is not shown: it may hold a password)`,
    );
  }
  return url.password ? decodeURIComponent(url.password) : undefined;
}

function decodes(text: string): boolean {
  try {
    decodeURIComponent(text);
    return true;
  } catch {
    return false;
  }
}
