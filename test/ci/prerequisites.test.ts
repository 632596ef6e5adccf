// The command test/support/debian-prerequisites.ts prints or runs for missing Debian packages.
import { describe, expect, it } from 'vitest';
import { installCommand } from '../support/debian-prerequisites.js';

describe('the install command for missing packages', () => {
  it('works as printed for a non-root user: sudo on both halves', () => {
    expect(installCommand(['bubblewrap', 'chromium'], 'sudo ')).toBe(
      'sudo apt-get update && sudo apt-get install -y --no-install-recommends bubblewrap chromium',
    );
  });

  it('installs nothing the packages merely recommend', () => {
    expect(installCommand(['chromium'])).toContain('--no-install-recommends chromium');
  });
});
