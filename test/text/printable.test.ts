import { describe, expect, it } from 'vitest';
import { StderrLogger } from '../../src/publish/stderr-logger.js';
import { printable, withoutBidiControls } from '../../src/text/printable.js';
import { escapeMarkdown, codeSpan } from '../../src/report/escape.js';

describe('printable', () => {
  it('shows escape sequences, C1 controls and bidirectional controls as escapes', () => {
    const subject = 'fix\u001b]0;pwned\u0007 cache\u001b[2K\u009b31m \u202Eevil\u2066';
    expect(printable(subject)).toBe(
      'fix\\x1b]0;pwned\\x07 cache\\x1b[2K\\x9b31m \\u202eevil\\u2066',
    );
  });

  it('keeps newlines, tabs and ordinary text, Unicode included', () => {
    expect(printable('a\tb\nc — µs ✓ 日本')).toBe('a\tb\nc — µs ✓ 日本');
  });

  it("escapes the CLI's own log lines, but passes the benchmark's output as it is", () => {
    const written: string[] = [];
    const log = new StderrLogger({ showOutput: true }, (text) => written.push(text));
    log.info('bisect: abc1234 \u001b[31mred\u001b[0m');
    log.warning('record \u202Etxt.exe');
    log.output('\u001b[32mINFO\u001b[0m vllm\n');
    expect(written).toEqual([
      'bisect: abc1234 \\x1b[31mred\\x1b[0m\n',
      'warning: record \\u202etxt.exe\n',
      '\u001b[32mINFO\u001b[0m vllm\n',
    ]);
  });
});

describe('bidirectional controls in published markdown', () => {
  it('are shown as code points, never passed on', () => {
    const name = 'qwen3\u202Eevil\u2067x';
    expect(withoutBidiControls(name)).toBe('qwen3⟨U+202E⟩evil⟨U+2067⟩x');
    for (const escaped of [escapeMarkdown(name), codeSpan(name)]) {
      expect(escaped).not.toMatch(/[\u202A-\u202E\u2066-\u2069]/);
      expect(escaped).toContain('⟨U+202E⟩');
    }
  });
});
