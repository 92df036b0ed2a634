import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXPERIMENT_TOPIC_KEYS } from '../../../services/experiment/common/bus-names.ts';
import { EXCLUSIVE_FILES, locksOf } from '../../integration/exclusive-files.ts';
import { spreadAmong } from '../../late-files-sequencer.ts';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const DIR = join(ROOT, 'test', 'integration');
const HELPERS = join(ROOT, 'test', 'helpers');
const files = readdirSync(DIR).filter((name) => name.endsWith('.test.ts'));
const text = (name: string) => readFileSync(join(DIR, name), 'utf8');
const helpers = readdirSync(HELPERS, { recursive: true, encoding: 'utf8' }).filter((name) =>
  name.endsWith('.ts'),
);

const EXPERIMENT_KEYS = new Set<string>(EXPERIMENT_TOPIC_KEYS);

/**
 * Where a source names an experiment topic by its fixed name: a row of TOPICS (except a copy under
 * a name of its own, `{ ...TOPICS.x, name: ... }`), or the table without a prefix.
 */
function fixedTopicNames(source: string): string[] {
  const rows = [...source.matchAll(/(\.\.\.)?\bTOPICS\.(\w+)(\s*,\s*name:)?/g)]
    .filter(([, spread, key, renamed]) => EXPERIMENT_KEYS.has(key!) && !(spread && renamed))
    .map(([match]) => match);
  return [...rows, ...(source.match(/experimentTopics\(\s*''\s*\)/g) ?? [])];
}

/**
 * A file that uses the experiment service's fixed topic or group names on the tests' one broker:
 * it names a topic so, gives a service the empty prefix, or starts the service by hand (the image's
 * experiment role, the CLI's runners) without KAFKA_TOPIC_PREFIX. startExperimentServer gives every
 * service the file's own.
 */
function usesFixedExperimentNames(source: string): boolean {
  if (!/inject\('infra'\)/.test(source)) return false;
  // The experiment role of the image, or the experiment CLI (its runners), started by the file.
  const startsByHand = /\['experiment'[\],]|'services', 'experiment', 'cli\.ts'/.test(source);
  return (
    fixedTopicNames(source).length > 0 ||
    /KAFKA_TOPIC_PREFIX:\s*''/.test(source) ||
    (startsByHand && !/KAFKA_TOPIC_PREFIX/.test(source))
  );
}

describe('the integration files that run two at a time', () => {
  it('lists every file that uses the fixed experiment names on the tests’ broker under experiment-topics', () => {
    const missing = files
      .filter((name) => usesFixedExperimentNames(text(name)))
      .filter((name) => !locksOf(name).includes('experiment-topics'));
    expect(missing).toEqual([]);
  });

  it('lists under experiment-topics only files that use the fixed names (the others run beside any file)', () => {
    const needless = files
      .filter((name) => locksOf(name).includes('experiment-topics'))
      .filter((name) => !usesFixedExperimentNames(text(name)));
    expect(needless).toEqual([]);
  });

  it('tells a file on the fixed names from one on its own', () => {
    const onInfra = "const infra = inject('infra');\n";
    expect(usesFixedExperimentNames(`${onInfra}readEvents(bus, TOPICS.trialStatus.name)`)).toBe(true);
    expect(usesFixedExperimentNames(`${onInfra}const own = experimentTopics('');`)).toBe(true);
    expect(usesFixedExperimentNames(`${onInfra}startExperimentServer({ KAFKA_TOPIC_PREFIX: '' })`)).toBe(
      true,
    );
    expect(usesFixedExperimentNames(`${onInfra}await startContainer(tag, ['experiment'], { env })`)).toBe(
      true,
    );
    expect(usesFixedExperimentNames(`${onInfra}readEvents(bus, server.topics.trialStatus.name)`)).toBe(false);
    expect(
      usesFixedExperimentNames(`${onInfra}{ ...TOPICS.nasControllerState, name: uniqueName('t') }`),
    ).toBe(false);
    expect(
      usesFixedExperimentNames(
        `${onInfra}startContainer(tag, ['experiment'], { KAFKA_TOPIC_PREFIX: fileTopicPrefix() })`,
      ),
    ).toBe(false);
    expect(usesFixedExperimentNames(`${onInfra}readProgressEvents(bus, TOPICS.upgradeProgress.name)`)).toBe(
      false,
    );
    // On a broker of its own (a scratch broker, a cluster), nothing is shared.
    expect(usesFixedExperimentNames('readEvents(cluster.bus, TOPICS.trialStatus.name)')).toBe(false);
  });

  it('the helpers name experiment topics only by a server’s or the file’s prefix', () => {
    const fixed = helpers.filter((name) =>
      fixedTopicNames(readFileSync(join(HELPERS, name), 'utf8')).some((use) => use.startsWith('TOPICS')),
    );
    expect(fixed).toEqual([]);
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
    const table = { 'kafka-cluster': ['both', 'one'], 'experiment-topics': ['both'] };
    expect(locksOf('/x/test/integration/both.test.ts', table)).toEqual([
      'experiment-topics',
      'kafka-cluster',
    ]);
    expect(locksOf('/x/test/integration/one.test.ts', table)).toEqual(['kafka-cluster']);
    expect(locksOf('/x/test/integration/kafka-cluster.test.ts')).toEqual(['kafka-cluster']);
    expect(locksOf('/x/test/integration/dbmanager.test.ts')).toEqual([]);
  });

  it('spreads the locked files evenly among the others, each list in its own order', () => {
    const spread = (few: string, many: string) => spreadAmong([...few], [...many]).join('');
    expect(spread('ab', '1234')).toBe('a12b34');
    expect(spread('abc', '1234567')).toBe('a12b34c567');
    expect(spread('', '12')).toBe('12');
    expect(spread('ab', '')).toBe('ab');
  });
});
