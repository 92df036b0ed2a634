import { describe, expect, it } from 'vitest';
import {
  createLineParser,
  epochSecondsToRfc3339,
  LineSplitter,
  ObjectiveWatch,
} from '../../../../services/experiment/runner/metrics-lines.ts';

const READ_AT = '2026-01-02T03:04:05.5Z';
const parseAll = (parse: ReturnType<typeof createLineParser>, text: string) =>
  text.split('\n').flatMap((line) => parse(line, READ_AT).logs.map((l) => [l.timeStamp, l.name, l.value]));

describe('the StdOut / File TEXT rules', () => {
  it("reads Katib's default name=value filter", () => {
    const parse = createLineParser({ format: 'TEXT', filters: [], metricNames: ['loss', 'accuracy'] });
    expect(parseAll(parse, 'epoch 1: loss=0.53 accuracy = 0.71 other=3\nnothing here\nloss=1e-3')).toEqual([
      [READ_AT, 'loss', '0.53'],
      [READ_AT, 'accuracy', '0.71'],
      [READ_AT, 'loss', '1e-3'],
    ]);
  });

  it('takes a leading RFC 3339 token as the time, and only whole lines naming a metric', () => {
    const parse = createLineParser({ format: 'TEXT', filters: [], metricNames: ['loss'] });
    expect(
      parseAll(parse, '2024-03-04T17:55:08.25Z INFO loss=0.4\n2024-13-04T17:55:08Z loss=0.3\nacc=0.9'),
    ).toEqual([
      ['2024-03-04T17:55:08.25Z', 'loss', '0.4'],
      [READ_AT, 'loss', '0.3'],
    ]);
  });

  it("applies the experiment's own filters (Katib's test vectors)", () => {
    const parse = createLineParser({
      format: 'TEXT',
      filters: [String.raw`{metricName: ([\w|-]+), metricValue: ((-?\d+)(\.\d+)?)}`],
      metricNames: ['accuracy', 'loss'],
    });
    const text = [
      '2024-03-04T17:55:08Z INFO     {metricName: accuracy, metricValue: 0.8078};{metricName: loss, metricValue: 0.5183}',
      '2024-03-04T17:55:08Z INFO     {metricName: accuracy, metricValue: -0.4759}',
      '{metricName: loss, metricValue: 0.8671}',
      '2024-03-04T17:55:08Z INFO     {metricName: accuracy, metricValue: .333}',
      '2024-03-04T17:55:08Z INFO     {metricName: accuracy, metricValue: - 345.333}',
      '2024-03-04T17:55:08Z INFO     {metricName: accuracy, metricValue: 888.}',
    ].join('\n');
    expect(parseAll(parse, text)).toEqual([
      ['2024-03-04T17:55:08Z', 'accuracy', '0.8078'],
      ['2024-03-04T17:55:08Z', 'loss', '0.5183'],
      ['2024-03-04T17:55:08Z', 'accuracy', '-0.4759'],
      [READ_AT, 'loss', '0.8671'],
    ]);
  });

  it('reads Go named groups and flags', () => {
    const parse = createLineParser({
      format: 'TEXT',
      filters: ['(?i)(?P<n>LOSS):\\s*(?P<v>[0-9.]+)'],
      metricNames: ['loss'],
    });
    expect(parseAll(parse, 'Loss: 0.25')).toEqual([]);
    const exact = createLineParser({
      format: 'TEXT',
      filters: ['(?i)(?P<n>loss):\\s*(?P<v>[0-9.]+)'],
      metricNames: ['loss'],
    });
    expect(parseAll(exact, 'epoch loss: 0.25')).toEqual([[READ_AT, 'loss', '0.25']]);
  });
});

describe('the File JSON rules', () => {
  const parse = createLineParser({ format: 'JSON', filters: [], metricNames: ['acc', 'loss'] });

  it("reads Katib's test vectors (times as RFC 3339 or epoch seconds)", () => {
    const text = [
      '{"checkpoint_path": "", "global_step": "0", "loss": "0.22082142531871796", "timestamp": 1638422847.28721, "trial": "0"}',
      '{"acc": "0.9349666833877563", "global_step": "0", "timestamp": 1638422847.287801, "trial": "0"}',
      '{"global_step": "1", "loss": "0.1414974331855774", "timestamp": "2021-12-02T14:27:50.000035161Z", "trial": "0"}',
      '{"global_step": "2", "loss": "0.10683439671993256", "trial": "0"}',
      '',
    ].join('\n');
    expect(parseAll(parse, text)).toEqual([
      ['2021-12-02T05:27:27.28721Z', 'loss', '0.22082142531871796'],
      ['2021-12-02T05:27:27.287801Z', 'acc', '0.9349666833877563'],
      ['2021-12-02T14:27:50.000035161Z', 'loss', '0.1414974331855774'],
      [READ_AT, 'loss', '0.10683439671993256'],
    ]);
  });

  it('takes numbers as values, and names a line that is not a JSON object', () => {
    expect(parse('{"acc": 0.5, "loss": true}', READ_AT).logs).toEqual([
      { timeStamp: READ_AT, name: 'acc', value: '0.5' },
    ]);
    expect(parse('"checkpoint_path": "", "loss": "0.2"', READ_AT).problem).toMatch(/^not JSON/);
    expect(parse('[1, 2]', READ_AT).problem).toMatch(/^not a JSON object/);
  });

  it('converts epoch seconds exactly to the microsecond', () => {
    expect(epochSecondsToRfc3339(0)).toBe('1970-01-01T00:00:00Z');
    expect(epochSecondsToRfc3339(1638422847.5)).toBe('2021-12-02T05:27:27.5Z');
    expect(epochSecondsToRfc3339(Number.NaN)).toBeUndefined();
  });
});

describe('partial lines', () => {
  it('keeps a line written in pieces until its newline, and the last one without one', () => {
    const split = new LineSplitter();
    expect(split.push('loss=0.')).toEqual([]);
    expect(split.push('5\r\nacc')).toEqual(['loss=0.5']);
    expect(split.push('=0.9\nlo')).toEqual(['acc=0.9']);
    expect(split.push('ss=0.4')).toEqual([]);
    expect(split.end()).toBe('loss=0.4');
    expect(split.end()).toBeUndefined();
  });
});

describe('a trial that never reports its objective', () => {
  it("gets Katib's unavailable log at year 1", () => {
    const watch = new ObjectiveWatch('loss');
    watch.observe([{ timeStamp: READ_AT, name: 'acc', value: '1' }]);
    expect(watch.reported).toBe(false);
    expect(watch.finalLogs()).toEqual([
      { timeStamp: '0001-01-01T00:00:00Z', name: 'loss', value: 'unavailable' },
    ]);
    watch.observe([{ timeStamp: READ_AT, name: 'loss', value: '1' }]);
    expect(watch.finalLogs()).toEqual([]);
  });
});
