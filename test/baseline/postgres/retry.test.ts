// Which PostgreSQL failures the store tries again (the connection, a lost race) and which
// it reports at once (a refusal: password, database, privilege, a newer schema).
import { describe, expect, it } from 'vitest';
import { NewerSchemaError } from '../../../src/baseline/postgres/migrations.js';
import { isRetriable } from '../../../src/baseline/postgres/retry.js';
import { ConnectTimeoutError } from '../../../src/baseline/postgres/session.js';

const withCode = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('isRetriable', () => {
  it.each([
    ['a dropped connection (class 08)', withCode('08006')],
    [
      'pg_terminate_backend',
      withCode('57P01', 'terminating connection due to administrator command'),
    ],
    ['a server starting up', withCode('57P03')],
    ['a deadlock', withCode('40P01')],
    ['a serialization failure', withCode('40001')],
    ['too many connections', withCode('53300')],
    ['statement_timeout', withCode('57014')],
    ['a refused connection', withCode('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432')],
    ['a reset connection', withCode('ECONNRESET')],
    ['the driver seeing the socket close', new Error('Connection terminated unexpectedly')],
    [
      'a client broken by an earlier error',
      new Error('Client has encountered a connection error and is not queryable'),
    ],
    ['no connection in time', new ConnectTimeoutError('no connection within 10 ms')],
  ])('retries %s', (_, error) => {
    expect(isRetriable(error)).toBe(true);
  });

  it.each([
    ['a wrong password', withCode('28P01', 'password authentication failed for user "gate"')],
    ['a missing database', withCode('3D000', 'database "nightly" does not exist')],
    ['a missing privilege', withCode('42501', 'permission denied for schema public')],
    ['a duplicate key the store did not expect', withCode('23505')],
    ['a newer schema', new NewerSchemaError('its schema is at version 9')],
    ['an error of the store itself', new Error('found no free name')],
    ['something not an Error', 'ECONNRESET'],
  ])('does not retry %s', (_, error) => {
    expect(isRetriable(error)).toBe(false);
  });
});
