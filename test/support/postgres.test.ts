// The test cluster's binaries: found where Debian puts them, and a missing server is a
// failure that says what to install, never a silent skip.
import { describe, expect, it } from 'vitest';
import { POSTGRES_INSTALL_ADVICE, postgresBinDir } from './postgres.js';

describe('postgresBinDir', () => {
  it("finds this machine's server binaries", () => {
    expect(postgresBinDir()).toMatch(/\/bin$/);
  });

  it('fails naming the package to install when there are none', () => {
    expect(() =>
      postgresBinDir({ pgConfig: 'no-such-pg_config', debianRoot: '/no/such/folder' }),
    ).toThrow(POSTGRES_INSTALL_ADVICE);
    expect(POSTGRES_INSTALL_ADVICE).toMatch(/apt-get install .*postgresql/);
  });
});
