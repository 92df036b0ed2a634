import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXCLUSIVE_FILES, locksOf } from '../../integration/exclusive-files.ts';
import { spreadAmong } from '../../late-files-sequencer.ts';

const DIR = join(import.meta.dirname, '..', '..', 'integration');
const files = readdirSync(DIR).filter((name) => name.endsWith('.test.ts'));
const text = (name: string) => readFileSync(join(DIR, name), 'utf8');

// A file that runs the experiment service, or reads or writes its topics, on the tests' one broker.
const usesExperimentTopics = (source: string): boolean =>
  /infra\.KAFKA_BROKERS|inject\('infra'\)\.KAFKA_BROKERS/.test(source) &&
  /startExperimentServer|startRole\(|TOPICS\.(?!upgradeProgress)\w+/.test(source);

describe('the integration files that run two at a time', () => {
  it('lists every file that uses the experiment topics of the tests’ broker under experiment-topics', () => {
    const missing = files
      .filter((name) => usesExperimentTopics(text(name)))
      .filter((name) => !locksOf(name).includes('experiment-topics'));
    expect(missing).toEqual([]);
  });

  it('lists every file that starts the three-broker cluster under kafka-cluster', () => {
    const missing = files
      .filter((name) => /startKafkaCluster\(/.test(text(name)))
      .filter((name) => !locksOf(name).includes('kafka-cluster'));
    expect(missing).toEqual([]);
  });

  it('names only files that exist', () => {
    const names = new Set(files.map((name) => name.replace(/\.test\.ts$/, '')));
    const unknown = Object.values(EXCLUSIVE_FILES)
      .flat()
      .filter((name) => !names.has(name));
    expect(unknown).toEqual([]);
  });

  it('takes a file’s locks in one order', () => {
    expect(locksOf('/x/test/integration/kafka-cluster.test.ts')).toEqual([
      'experiment-topics',
      'kafka-cluster',
    ]);
    expect(locksOf('/x/test/integration/dbmanager.test.ts')).toEqual(['experiment-topics']);
    expect(locksOf('/x/test/integration/ratelimit.test.ts')).toEqual([]);
  });

  it('spreads the locked files evenly among the others, each list in its own order', () => {
    const spread = (few: string, many: string) => spreadAmong([...few], [...many]).join('');
    expect(spread('ab', '1234')).toBe('a12b34');
    expect(spread('abc', '1234567')).toBe('a12b34c567');
    expect(spread('', '12')).toBe('12');
    expect(spread('ab', '')).toBe('ab');
  });
});
