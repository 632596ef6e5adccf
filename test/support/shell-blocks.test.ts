// The docs' shell commands, split as bash would: a background `&` and a `2>&1` used to
// stop the tokenizer on the spot and grow a list of empty words until the heap ran out.
import { describe, expect, it } from 'vitest';
import { commandsOf } from './shell-blocks.js';

describe('commandsOf', () => {
  it('ends a command at a background &', () => {
    const commands = commandsOf(['node server.js & npm test']);
    expect(commands.map((c) => c.words)).toEqual([
      ['node', 'server.js'],
      ['npm', 'test'],
    ]);
  });

  it('drops a 2>&1 redirection and keeps the > target as a write', () => {
    const [command] = commandsOf(['PORT=1 npm run bench > out.log 2>&1']);
    expect(command).toMatchObject({
      words: ['npm', 'run', 'bench'],
      assignments: { PORT: '1' },
      writes: ['out.log'],
    });
  });

  it('splits at && || ; | as before, and keeps quoted operators inside words', () => {
    const commands = commandsOf(["a && b || c; d | e 'x & y'"]);
    expect(commands.map((c) => c.words)).toEqual([['a'], ['b'], ['c'], ['d'], ['e', 'x & y']]);
  });
});
