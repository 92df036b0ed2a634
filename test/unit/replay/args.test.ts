import { describe, expect, it } from 'vitest';
import {
  type ParsedArgs,
  parseReplayArgs,
  parseRfc3339,
  type ReplayOptions,
} from '../../../services/replay/args.ts';

const ALLOWED = '--from-beginning, --from, --until, --key, --format, --follow, --brokers, --help';
const TIME_ALLOWED = 'an RFC 3339 date-time with Z or an offset, e.g. 2026-05-01T12:00:00Z';

function options(...args: string[]): ReplayOptions {
  const parsed = parseReplayArgs(args);
  if (parsed.kind !== 'run') throw new Error(`expected options, got ${JSON.stringify(parsed)}`);
  return parsed.options;
}

const error = (...args: string[]): string | undefined => {
  const parsed: ParsedArgs = parseReplayArgs(args);
  return parsed.kind === 'error' ? parsed.message : undefined;
};

describe('replay arguments', () => {
  it('defaults to the beginning, jsonl, no follow, no filters', () => {
    expect(options('t.topic')).toEqual({
      topic: 't.topic',
      start: { kind: 'beginning' },
      untilMs: undefined,
      key: undefined,
      format: 'jsonl',
      follow: false,
      brokers: undefined,
    });
  });

  it('returns frozen options', () => {
    const o = options('t', '--from', '2026-05-01T12:00:00Z', '--brokers', 'a:1');
    expect(Object.isFrozen(o)).toBe(true);
    expect(Object.isFrozen(o.start)).toBe(true);
    expect(Object.isFrozen(o.brokers)).toBe(true);
  });

  it('reads every option, in any order and with inline values', () => {
    expect(
      options(
        '--format=csv',
        '--follow',
        't',
        '--key',
        'trial-1',
        '--until',
        '2026-05-01T13:00:00Z',
        '--from',
        '2026-05-01T12:00:00.5+02:00',
        '--brokers',
        'k1:9092, k2:9093',
      ),
    ).toEqual({
      topic: 't',
      start: { kind: 'time', ms: Date.UTC(2026, 4, 1, 10, 0, 0, 500) },
      untilMs: Date.UTC(2026, 4, 1, 13),
      key: 'trial-1',
      format: 'csv',
      follow: true,
      brokers: ['k1:9092', 'k2:9093'],
    });
  });

  it('accepts --from-beginning explicitly', () => {
    expect(options('t', '--from-beginning').start).toEqual({ kind: 'beginning' });
  });

  it('accepts a key that starts with a dash when given inline', () => {
    expect(options('t', '--key=-x').key).toBe('-x');
  });

  it('asks for help with --help and -h', () => {
    expect(parseReplayArgs(['--help'])).toEqual({ kind: 'help' });
    expect(parseReplayArgs(['t', '-h'])).toEqual({ kind: 'help' });
  });

  it('rejects an unknown option, naming it and the allowed ones', () => {
    expect(error('t', '--since', 'x')).toBe(`unknown option --since; allowed options: ${ALLOWED}`);
    expect(error('t', '-x')).toBe(`unknown option -x; allowed options: ${ALLOWED}`);
  });

  it('rejects a missing topic', () => {
    expect(error()).toBe('missing topic: give the topic to read, e.g. replay <topic>');
    expect(error('--follow')).toBe('missing topic: give the topic to read, e.g. replay <topic>');
  });

  it('rejects a second topic', () => {
    expect(error('a', 'b')).toBe('unexpected argument "b": give exactly one topic');
  });

  it('rejects both --from-beginning and --from', () => {
    expect(error('t', '--from-beginning', '--from', '2026-05-01T12:00:00Z')).toBe(
      '--from-beginning and --from cannot be used together: give one of them',
    );
  });

  it('rejects an option without its value', () => {
    expect(error('t', '--from')).toBe('--from needs a value');
    expect(error('t', '--key', '--follow')).toBe('--key needs a value');
  });

  it('rejects a value given to a flag', () => {
    expect(error('t', '--follow=yes')).toBe('--follow takes no value, got "yes"');
  });

  it.each([
    '2026-05-01',
    '2026-05-01T12:00:00',
    '2026-05-01 12:00:00Z',
    '2026-05-01T12:00Z',
    '2026-13-01T12:00:00Z',
    '2026-02-30T12:00:00Z',
    '2026-05-01T24:00:00Z',
    '2026-05-01T12:00:00+2:00',
    '2026-05-01T12:00:00+24:00',
    'yesterday',
    '1714560000',
  ])('rejects %s as a --from or --until time', (time) => {
    expect(error('t', '--from', time)).toBe(`--from "${time}" is not a time: allowed is ${TIME_ALLOWED}`);
    expect(error('t', '--until', time)).toBe(`--until "${time}" is not a time: allowed is ${TIME_ALLOWED}`);
  });

  it('rejects --until before --from, and allows them equal', () => {
    expect(error('t', '--from', '2026-05-01T12:00:00Z', '--until', '2026-05-01T11:59:59Z')).toBe(
      '--until "2026-05-01T11:59:59Z" is before --from "2026-05-01T12:00:00Z": --until must not be earlier than --from',
    );
    expect(
      options('t', '--from', '2026-05-01T12:00:00Z', '--until', '2026-05-01T14:00:00+02:00').untilMs,
    ).toBe(Date.UTC(2026, 4, 1, 12));
  });

  it('rejects an unknown format', () => {
    expect(error('t', '--format', 'xml')).toBe('--format "xml" is not allowed: use one of jsonl, csv');
  });

  it('rejects brokers that are not host:port pairs', () => {
    const message = (b: string) =>
      `--brokers "${b}" is not allowed: use comma-separated host:port pairs, port from 1 to 65535`;
    expect(error('t', '--brokers', 'localhost')).toBe(message('localhost'));
    expect(error('t', '--brokers', 'a:1,b:70000')).toBe(message('a:1,b:70000'));
    expect(error('t', '--brokers', ',')).toBe(message(','));
  });
});

describe('RFC 3339 times', () => {
  it('reads Z, offsets, lower-case t/z and fractions', () => {
    expect(parseRfc3339('2026-05-01T12:00:00Z')).toBe(Date.UTC(2026, 4, 1, 12));
    expect(parseRfc3339('2026-05-01t12:00:00z')).toBe(Date.UTC(2026, 4, 1, 12));
    expect(parseRfc3339('2026-05-01T12:00:00.123456-01:30')).toBe(Date.UTC(2026, 4, 1, 13, 30, 0, 123));
    expect(parseRfc3339('2024-02-29T00:00:00Z')).toBe(Date.UTC(2024, 1, 29));
    expect(parseRfc3339('2026-02-29T00:00:00Z')).toBeUndefined();
  });
});
