import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  redactStrings,
  redactText,
  secretValuesIn,
  secretValuesOf,
} from '../../src/report/redact.js';

describe('redactText', () => {
  it('replaces secret-looking assignments, flags, URL credentials and headers', () => {
    expect(redactText('HF_TOKEN=abc python b.py')).toBe('HF_TOKEN=*** python b.py');
    expect(redactText('export API_KEY="a b" && x')).toBe('export API_KEY=*** && x');
    expect(redactText('b.py --hf-token abc --api-key=def')).toBe(
      'b.py --hf-token *** --api-key=***',
    );
    expect(redactText('curl -H "Authorization: Bearer abc.def"')).toBe(
      'curl -H "Authorization: Bearer ***"',
    );
    expect(redactText('pip install -i https://me:pw@pypi.example/simple x')).toBe(
      'pip install -i https://***@pypi.example/simple x',
    );
    expect(redactText('{"password": "hunter22"}')).toBe('{"password": ***}');
  });

  it('reads URL credentials as fetch does (WHATWG URL), so that display and fetch agree', () => {
    // A backslash ends the host of an http URL: fetch asks 127.0.0.1:8000 for /@169...
    const backslash = 'ready-url http://127.0.0.1:8000\\@169.254.169.254/ not ready';
    expect(new URL('http://127.0.0.1:8000\\@169.254.169.254/').host).toBe('127.0.0.1:8000');
    expect(redactText(backslash)).toBe(backslash);
    // In a scheme WHATWG does not treat as special, the backslash is part of the password.
    expect(redactText('git+ssh://me:pw\\@host/x')).toBe('git+ssh://***@host/x');
    expect(redactText('GET http://u:p@127.0.0.1:8000\\health')).toBe(
      'GET http://***@127.0.0.1:8000\\health',
    );
    // Whatever does not parse as a URL is taken to hold credentials.
    expect(redactText('http://me:pw@[bad/x')).toBe('http://***@[bad/x');
  });

  it('replaces tokens in the formats GitHub, Hugging Face and AWS issue', () => {
    const text = `a ghs_${'x'.repeat(36)} b hf_${'y'.repeat(34)} c AKIAABCDEFGHIJKLMNOP d`;
    expect(redactText(text)).toBe('a *** b *** c *** d');
  });

  it('leaves benchmark settings that only look alike', () => {
    const command = 'vllm bench --max-tokens 128 --tokenizer x --author me max_tokens=5';
    expect(redactText(command)).toBe(command);
    expect(redactText('throughput (tokens/s): 1234')).toBe('throughput (tokens/s): 1234');
  });

  it('replaces known values wherever they appear', () => {
    const secrets = secretValuesOf({
      HF_HUB_TOKEN: 'abcdefgh12',
      PATH: '/usr/bin',
      PASSWORD: 'short',
    });
    expect(secrets).toEqual(['abcdefgh12']);
    expect(redactText('using abcdefgh12 now', secrets)).toBe('using *** now');
  });
});

describe('secretValuesIn', () => {
  it('finds the values written into a command, not variables it expands', () => {
    expect(secretValuesIn('HF_TOKEN=s3cr3tvalue --api-key "another one" X_TOKEN=$HF')).toEqual([
      's3cr3tvalue',
      'another one',
    ]);
  });
});

describe('redactStrings', () => {
  it('redacts every string of a JSON value and keeps the rest', () => {
    const value = { a: ['TOKEN=abcdefgh'], n: 3, nested: { s: 'ok' } };
    expect(redactStrings(value)).toEqual({ a: ['TOKEN=***'], n: 3, nested: { s: 'ok' } });
  });

  it('redacts keys too, and keeps a __proto__ key a key', () => {
    const token = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789';
    const value = JSON.parse(
      `{"extra": {"${token}": 1, "known-secret-1": 2, "__proto__": {"x": 3}}}`,
    ) as unknown;
    const redacted = redactStrings(value, ['known-secret-1']);
    expect(JSON.stringify(redacted)).not.toContain('ghp_');
    expect(JSON.stringify(redacted)).not.toContain('known-secret-1');
    expect(Object.keys((redacted as { extra: object }).extra)).toEqual(['***', '__proto__']);
    expect(Object.getPrototypeOf((redacted as { extra: object }).extra)).toBe(Object.prototype);
  });
});

/** The module itself: Node 24 runs its TypeScript as it is (type-only imports). */
const REDACT_SOURCE = fileURLToPath(new URL('../../src/report/redact.ts', import.meta.url));

describe('redactText on long lines', () => {
  // A hang, not a speed goal: unbounded name patterns were quadratic, and a 300,000-character
  // line of 'a.' took 80 s (600,000: 320 s), past the publish deadline. The regex runs
  // synchronously, so no test timeout could stop it: it runs in a child process, killed
  // after 30 s.
  it('finishes a 600,000-character line of name characters and still finds what follows', () => {
    const script = [
      `const { redactText } = await import(${JSON.stringify(REDACT_SOURCE)});`,
      "const line = `${'a.'.repeat(300_000)} HF_TOKEN=abcdefghij`;",
      'process.stdout.write(redactText(line).slice(-20));',
    ].join('\n');
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(out).toBe('.a.a.a. HF_TOKEN=***');
  });
});
