import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readmeCommands, withoutComment } from '../../../scripts/readme-walk/readme-commands.ts';
import { pairSteps } from '../../../scripts/readme-walk/steps.ts';

describe('withoutComment', () => {
  it.each([
    ['npm run ratelimit                                   # the service', 'npm run ratelimit'],
    ["kcat -C -t t.dlq -e -f '%h\\n'   # dead-letter reasons", "kcat -C -t t.dlq -e -f '%h\\n'"],
    ['curl -d \'{"a":"# not a comment"}\' x', 'curl -d \'{"a":"# not a comment"}\' x'],
    ['echo "a # b" # c', 'echo "a # b"'],
    ['echo a#b', 'echo a#b'],
    ['echo a\\ #b', 'echo a\\ #b'],
    ['# only a comment', ''],
  ])('%s', (text, command) => {
    expect(withoutComment(text)).toBe(command);
  });
});

describe('readmeCommands', () => {
  const markdown = [
    '# title',
    '```sh',
    'npm start   # runs it',
    '',
    'npm test',
    '```',
    '```',
    'not a command',
    '```',
    '| variable | default | meaning |',
    '|---|---|---|',
    '| `PORT` | `8080` | `curl` is not run from here |',
    '',
    '| call | what it does | example |',
    '|---|---|---|',
    "| `GET /a` | one | `curl 'http://h/a?x=1\\|2'` |",
    '| `GET /` | the page | open `http://h/` |',
    '| `GET /b` | no example | none |',
    '',
    '  ```sh',
    '  npm run -s kvupgrade -- plan --cluster <cluster>',
    '  ```',
  ].join('\n');

  it('takes every sh line and every example of the API table, in order, with its line', () => {
    expect(readmeCommands(markdown)).toEqual([
      { text: 'npm start', line: 3, source: 'sh block' },
      { text: 'npm test', line: 5, source: 'sh block' },
      { text: "curl 'http://h/a?x=1\\|2'", line: 16, source: 'API table' },
      { text: 'open http://h/', line: 17, source: 'API table' },
      { text: 'npm run -s kvupgrade -- plan --cluster <cluster>', line: 21, source: 'sh block' },
    ]);
  });
});

describe('the README walk', () => {
  const readme = readFileSync(join(import.meta.dirname, '..', '..', '..', 'README.md'), 'utf8');
  const pairing = pairSteps(readmeCommands(readme));

  it('has a step for every command of README.md', () => {
    const missing = pairing.commands
      .filter((c) => c.step === undefined)
      .map((c) => `README:${c.command.line} ${c.command.text}`);
    expect(missing).toEqual([]);
  });

  it('has no step for a command README.md no longer has', () => {
    expect(pairing.stale.map((s) => s.command)).toEqual([]);
  });
});
