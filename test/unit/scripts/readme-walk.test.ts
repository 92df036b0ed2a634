import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { walkedCommands, walkedDocuments } from '../../../scripts/readme-walk/documents.ts';
import { readmeCommands, withoutComment } from '../../../scripts/readme-walk/readme-commands.ts';
import { pairSteps } from '../../../scripts/readme-walk/steps.ts';
import { firstError, moved, namedPorts, type Walk } from '../../../scripts/readme-walk/walk.ts';

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

  it('takes every sh line and every example of the API table, in order, with its file and line', () => {
    const file = 'docs/x.md';
    expect(readmeCommands(markdown, file)).toEqual([
      { text: 'npm start', file, line: 3, source: 'sh block' },
      { text: 'npm test', file, line: 5, source: 'sh block' },
      { text: "curl 'http://h/a?x=1\\|2'", file, line: 16, source: 'API table' },
      { text: 'open http://h/', file, line: 17, source: 'API table' },
      { text: 'npm run -s kvupgrade -- plan --cluster <cluster>', file, line: 21, source: 'sh block' },
    ]);
  });
});

describe('moved', () => {
  const walk = (portShift: number, kafkaPort = 9092 + portShift) =>
    ({ portShift, ports: portShift > 0 ? namedPorts(portShift, kafkaPort) : new Map() }) as unknown as Walk;

  it('moves every port the commands name, and nothing else', () => {
    const command =
      'EXPERIMENT_GRPC_PORT=6790 curl --json \'{"t":"2026-01-01T00:00:01Z"}\' http://127.0.0.1:8686/x; kcat -b 127.0.0.1:9092 -p 2379';
    expect(moved(walk(42000), command)).toBe(
      'EXPERIMENT_GRPC_PORT=48790 curl --json \'{"t":"2026-01-01T00:00:01Z"}\' http://127.0.0.1:50686/x; kcat -b 127.0.0.1:51092 -p 2379',
    );
    expect(moved(walk(0), command)).toBe(command);
  });

  it("puts Kafka's port where KAFKA_PORT moved the product's broker", () => {
    expect(moved(walk(42000, 31592), 'kcat -b 127.0.0.1:9092 http://127.0.0.1:8686/')).toBe(
      'kcat -b 127.0.0.1:31592 http://127.0.0.1:50686/',
    );
  });
});

describe('the walk of README.md and docs/', () => {
  const root = join(import.meta.dirname, '..', '..', '..');
  const pairing = pairSteps(walkedCommands(root));

  it('walks README.md first, then every Markdown file under docs/', () => {
    const documents = walkedDocuments(root);
    expect(documents[0]).toBe('README.md');
    expect(documents).toContain('docs/settings/experiment.md');
    expect(documents.every((d) => d === 'README.md' || (d.startsWith('docs/') && d.endsWith('.md')))).toBe(
      true,
    );
  });

  it('has a step for every command of README.md and docs/', () => {
    const missing = pairing.commands
      .filter((c) => c.step === undefined)
      .map((c) => `${c.command.file}:${c.command.line} ${c.command.text}`);
    expect(missing).toEqual([]);
  });

  it('has no step for a command neither README.md nor docs/ has', () => {
    expect(pairing.stale.map((s) => s.command)).toEqual([]);
  });
});

describe('firstError', () => {
  it('finds the first line reporting an error, not the stop after it', () => {
    const output = [
      '{"level":"info","msg":"starting"}',
      '{"level":"fatal","err":{"message":"kafka: no broker"},"msg":"start-up failure"}',
      '{"level":"info","msg":"stopped"}',
    ].join('\n');
    expect(firstError(output)).toBe(
      '{"level":"fatal","err":{"message":"kafka: no broker"},"msg":"start-up failure"}',
    );
    expect(firstError('Error: connect ECONNREFUSED 127.0.0.1:52092\n    at x')).toBe(
      'Error: connect ECONNREFUSED 127.0.0.1:52092',
    );
    expect(firstError('all good')).toBeUndefined();
  });
});
